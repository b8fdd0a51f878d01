"""The few lines ``/game status`` shows for a Civil War Battles game (CWB Supply, Isolated Units).

Per side: the ammo-loss percent of the Parameter Data (and the artillery Ammo Level when it is
not Normal), the units Low On Ammo, Out Of Ammo, Isolated or Routed, and the Supply Wagons with
their strength.

>>> from rules_core.cwb.state import Ammo, CwbState, SideData, Unit, Wagon
>>> state = CwbState(sides=(SideData(name="Union", ammo_loss_pct=4), SideData(name="CSA")),
...     units=(Unit(name="1st Minnesota", side="Union", men=262, ammo=Ammo.LOW),),
...     wagons=(Wagon(name="II Corps", side="Union", strength=25),))
>>> for line in table_summary(state):
...     print(line)
Union: ammo loss 4 %
Union Low On Ammo (morale checks −1, the players apply it): 1st Minnesota
Union wagons: II Corps 25
CSA: ammo loss not set
CSA wagons: none
"""

from __future__ import annotations

from rules_core.cwb.state import Ammo, CwbState

MORALE = "morale checks −1, the players apply it"
"""The morale effect of Low and Out (CWB Supply), stated with every list of such units."""

MAX_LINE = 180
"""Longest line shown; longer lists are cut with an ellipsis (a status must stay short)."""


def _line(label: str, items: list[str]) -> str:
    text = f"{label}: {', '.join(items)}"
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def table_summary(state: CwbState) -> list[str]:
    """Short status lines per side: ammo-loss percent, marked units, wagons (CWB Supply).

    >>> from rules_core.cwb.state import SideData
    >>> table_summary(CwbState(sides=(SideData(name="U", ammo_loss_pct=0),)))
    ['U: ammo loss 0 %', 'U wagons: none']
    """
    lines: list[str] = []
    for side in state.sides:
        head = f"{side.name}: ammo loss " + (
            "not set" if side.ammo_loss_pct is None else f"{side.ammo_loss_pct} %"
        )
        if side.artillery_ammo is not Ammo.NORMAL:
            head += f"; artillery {side.artillery_ammo.label}"
        if side.isolation_rule:
            head += "; Isolation rule on"
        lines.append(head)
        units = [u for u in state.units if u.side == side.name]
        for label, names in (
            (f"{Ammo.LOW.label} ({MORALE})", [u.name for u in units if u.ammo is Ammo.LOW]),
            (f"{Ammo.OUT.label} ({MORALE})", [u.name for u in units if u.ammo is Ammo.OUT]),
            ("Isolated", [u.name for u in units if u.isolated]),
            ("Routed", [u.name for u in units if u.routed]),
        ):
            if names:
                lines.append(_line(f"{side.name} {label}", names))
        wagons = [f"{w.name} {w.strength}" for w in state.wagons if w.side == side.name]
        lines.append(_line(f"{side.name} wagons", wagons or ["none"]))
    return lines


__all__ = ["MAX_LINE", "MORALE", "table_summary"]
