"""Measure each preview (``SYSTEM.odds``) of the OCS and CWB rolling actions.

Run: ``.venv/bin/python -m tests.ocs.perf_previews`` — best of 5 × 200 calls per action, in
milliseconds (issues 4 and 5 ask for ≤ 5 ms per preview; the audit tests pin that bound).
"""

from __future__ import annotations

import timeit
from fractions import Fraction
from functools import partial
from typing import Any

from rules_core.cwb import SYSTEM as CWB
from rules_core.cwb.actions import Fire
from rules_core.cwb.state import Unit as CwbUnit
from rules_core.ocs import SYSTEM as OCS
from rules_core.ocs.actions import Attack, Attrition, Blow, Breakout, Capture
from rules_core.ocs.state import Dump, Unit


def cases() -> dict[str, tuple[Any, Any, Any]]:
    """The measured (system, state, action) per label."""
    oos = tuple(
        Unit(
            name=f"U{i}",
            side="Axis",
            hex="H",
            steps=3,
            re=Fraction(3),
            ar=i % 6,
            out_of_supply=True,
        )
        for i in range(6)
    )
    others = (
        Unit(
            name="TP",
            side="Soviet",
            kind="transport",
            hex="C",
            steps=6,
            printed_ma=12,
            load_tokens=20,
        ),
        Unit(
            name="WG",
            side="Soviet",
            kind="transport",
            hex="C",
            steps=5,
            printed_ma=8,
            load_tokens=9,
        ),
        Unit(name="X", side="Axis", trace="none", out_of_supply=True),
        Unit(name="T", side="Axis", kind="transport", trace="none", steps=10, printed_ma=12),
        Unit(name="M", side="Axis", hex="C"),
    )
    ocs = OCS.new_state(["Axis", "Soviet"], {}).model_copy(
        update={
            "units": oos + others,
            "dumps": (
                Dump(side="Axis", hex="D", tokens=40),
                Dump(side="Soviet", hex="C", tokens=37),
            ),
        }
    )
    cwb = CWB.new_state(["Union", "CSA"], {"cwb_ammo_loss_pct": 4}).model_copy(
        update={"units": (CwbUnit(name="A", side="Union", men=300),)}
    )
    return {
        "ocs attrition (6 units, 18 OOS steps)": (
            OCS,
            ocs,
            Attrition(units=tuple(u.name for u in oos)),
        ),
        "ocs breakout (combat unit, first turn)": (OCS, ocs, Breakout(unit="X")),
        "ocs breakout (10 Transport Points)": (OCS, ocs, Breakout(unit="T")),
        "ocs blow (7 SP 3 T)": (OCS, ocs, Blow(side="Axis", dump="D", amount="7 SP 3 T")),
        "ocs capture (3 categories)": (OCS, ocs, Capture(side="Axis", hex="C", unit="M")),
        "ocs attack (no dice)": (OCS, ocs, Attack(attackers=("U0", "U1"), dump="D")),
        "cwb fire (d100)": (CWB, cwb, Fire(unit="A", mode="offensive")),
    }


def main() -> None:
    """Print the best mean time of each preview."""
    for name, (system, state, action) in cases().items():
        system.odds(state, action)
        timer = timeit.Timer(partial(system.odds, state, action))
        best = min(timer.repeat(number=200, repeat=5)) / 200
        print(f"{name:42s} {best * 1000:.3f} ms")


if __name__ == "__main__":
    main()
