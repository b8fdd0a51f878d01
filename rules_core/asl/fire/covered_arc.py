"""The Covered Arc a MMG/HMG's shot from woods, rubble or a building fixes (A9.21): the terrain
and whether a later target is inside the arc are the player's statements; the bot checks what
follows from them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.asl.actions import Fire
from rules_core.asl.state import Weapon
from rules_core.errors import IllegalAction, InvalidInput

CA_MG_SIZES = frozenset({"mmg", "hmg", "50cal"})
"""A9.21: the SW MGs whose Covered Arc a shot from woods/rubble/a building fixes (the .50 cal is
an HMG, A9.8)."""


def fixes_ca(weapon: Weapon) -> bool:
    """A SW MMG/HMG: its shot from woods, rubble or a building fixes its CA (A9.21).

    >>> fixes_ca(Weapon(name="MG", side="Axis", kind="sw_mg", mg="hmg"))
    True
    """
    return weapon.kind == "sw_mg" and weapon.mg in CA_MG_SIZES


def check_covered_arc(action: Fire, weapons: Sequence[Weapon]) -> list[tuple[str, str]]:
    """A9.21: a MMG/HMG whose prior shot this phase fixed its CA fires only inside it (its own
    Location always is); the stated terrain needs a MMG/HMG to apply to. Returns the notes.

    >>> mg = Weapon(name="HMG", side="Axis", kind="sw_mg", mg="hmg", ca_fixed=True)
    >>> check_covered_arc(Fire(weapons=("HMG",), inside_ca=True), [mg])
    [('A9.21', 'HMG fires inside the Covered Arc of its prior shot (stated)')]
    """
    notes: list[tuple[str, str]] = []
    if action.mg_terrain is not None and not any(fixes_ca(w) for w in weapons):
        raise IllegalAction(
            "mg-terrain fixes the Covered Arc of a SW MMG/HMG; none fires here (record a MG's "
            "size with mg:mmg or mg:hmg).",
            rule="A9.21",
        )
    fixed = [w for w in weapons if w.ca_fixed]
    if action.inside_ca is not None and not fixed:
        raise IllegalAction(
            "inside-ca applies to a MMG/HMG whose shot from woods, rubble or a building fixed "
            "its Covered Arc this phase; none fires here.",
            rule="A9.21",
        )
    if not fixed or action.range == 0:
        return notes
    names = ", ".join(w.name for w in fixed)
    if action.inside_ca is None:
        raise InvalidInput(
            f"{names} fired from woods, rubble or a building this phase and fires again only "
            "inside the Covered Arc of that shot (A9.21): say whether the target is "
            "(inside-ca:true or false)."
        )
    if not action.inside_ca:
        raise IllegalAction(
            f"{names} fired from woods, rubble or a building this phase: it may fire again "
            "only inside the Covered Arc of that shot.",
            rule="A9.21",
        )
    notes.append(("A9.21", f"{names} fires inside the Covered Arc of its prior shot (stated)"))
    return notes


__all__ = ["CA_MG_SIZES", "check_covered_arc", "fixes_ca"]
