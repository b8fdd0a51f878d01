"""Advanced Squad Leader: A9 MG/SW malfunction and Festung Budapest FB16 Ammunition Shortage.

>>> SYSTEM.name
'asl'
"""

from __future__ import annotations

from rules_core.asl.system import SYSTEM, AslSystem

__all__ = ["SYSTEM", "AslSystem"]
