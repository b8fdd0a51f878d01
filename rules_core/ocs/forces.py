"""The OCS forces of a game written back as set-up commands (dumps and units).

Every dump with its supply (OCS 12.1a notation), then every unit on the map or waiting as a
Reinforcement with its printed data, steps, RE, mode and supply markers (12.9, 12.10), in the
game's order. What only play makes — fuel for this phase (12.5c), this Supply Phase's trace checks
(12.6), Extenders (12.7), the Dead Pile and Breakout returns (12.8e) — is not part of a set-up.

>>> from rules_core.ocs.state import Dump, OcsState, Unit
>>> from rules_core.scenario import command_line
>>> state = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="0905", tokens=18),),
...                  units=(Unit(name="21 Pz", side="Axis", steps=2, hex="0905"),))
>>> [command_line(a) for a in forces(state)]
['dump add side:Axis hex:0905 amount:"4 1/2 SP"', 'unit add name:"21 Pz" side:Axis steps:2 \
hex:0905']
"""

from __future__ import annotations

from fractions import Fraction

from pydantic import BaseModel

from rules_core.ocs.actions import DumpAdd, UnitAdd
from rules_core.ocs.state import OcsState, Unit
from rules_core.ocs.tokens import format_tokens


def forces(state: OcsState) -> list[BaseModel]:
    """The set-up commands that set up ``state``'s dumps and units (OCS 12.1, 12.9)."""
    out: list[BaseModel] = [
        DumpAdd(side=dump.side, hex=dump.hex, amount=format_tokens(dump.tokens))
        for dump in state.dumps
        if dump.tokens
    ]
    out += [_unit(unit) for unit in state.units if unit.location != "dead pile"]
    return out


def _unit(unit: Unit) -> UnitAdd:
    return UnitAdd(
        name=unit.name,
        side=unit.side,
        steps=unit.steps,
        re=re_text(unit.re),
        ar=unit.ar,
        kind=unit.kind,
        formation=unit.formation,
        hq=unit.hq,
        hex=unit.hex,
        brigade=unit.brigade,
        arms=unit.arms,
        antitank=unit.antitank,
        movement=unit.movement,
        ma=unit.printed_ma,
        mode=unit.mode,
        internals=unit.internals,
        out_of_supply=unit.out_of_supply,
        load=format_tokens(unit.load_tokens),
        organic=unit.organic,
        throw_range=unit.throw_range,
        reinforcement=unit.location == "reinforcement",
    )


def re_text(re: Fraction) -> str:
    """Regimental Equivalents as players write them (series rule 9.11d): whole and a fraction.

    >>> [re_text(Fraction(n, 2)) for n in (0, 1, 2, 5)]
    ['0', '1/2', '1', '2 1/2']
    """
    whole, rest = divmod(re, 1)
    if not rest:
        return str(whole)
    return f"{rest}" if not whole else f"{whole} {rest}"


__all__ = ["forces", "re_text"]
