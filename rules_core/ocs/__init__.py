"""Operational Combat Series supply (OCS 12.0, v3 charts): the ``ocs`` game system.

>>> SYSTEM.name, SYSTEM.title
('ocs', 'Operational Combat Series')
"""

from __future__ import annotations

from rules_core.ocs.state import OcsOptions, OcsState, Unit
from rules_core.ocs.system import SYSTEM, OcsSystem
from rules_core.ocs.tokens import format_tokens, parse_tokens

__all__ = ["SYSTEM", "OcsOptions", "OcsState", "OcsSystem", "Unit", "format_tokens", "parse_tokens"]
