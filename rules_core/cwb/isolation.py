"""Isolation (optional rule): the test's result per unit and its effect on Melee defence.

HPS supply page, section "Isolated Units" — cited as ``CWB Isolated Units``: with the
Isolation Effects Optional Rule, at the beginning of each turn every unit of the current player
that cannot trace a line of hexes to a map edge, a Blocked hex or a Supply Source hex — without
passing through an enemy Zone-Of-Control not occupied by a friendly unit — is marked Isolated.
Isolated units defend in Melee at 1/4 strength (:data:`ISOLATED_MELEE_DEFENCE`, an exact
fraction; the caller rounds). The flag lasts until the next test.

The result is either declared (:func:`set_isolation`) or traced on the registered map
(:func:`isolation_test`, :func:`rules_core.cwb.hexgrid.isolation_trace`).

>>> from fractions import Fraction
>>> from rules_core.cwb.state import CwbState, SideData, Unit
>>> state = CwbState(sides=(SideData(name="CSA", isolation_rule=True),),
...                  units=(Unit(name="26th NC", side="CSA", men=800),))
>>> state = set_isolation(state, "26th NC", True).state
>>> melee_defence(state, state.unit("26th NC"), Fraction(800))
Fraction(200, 1)
"""

from __future__ import annotations

from fractions import Fraction

from rules_core.cwb.ammunition import MORALE_PLAYERS
from rules_core.cwb.hexgrid import format_hex, isolation_trace
from rules_core.cwb.state import Ammo, CwbOutcome, CwbState, Unit
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step

RULE = "CWB Isolated Units"
SUPPLY_RULE = "CWB Supply"

ISOLATED_MELEE_DEFENCE = Fraction(1, 4)
"""CWB Isolated Units: "Isolated units defend in Melee at ¼ strength"."""


def melee_defence_multiplier(state: CwbState, unit: Unit) -> Fraction:
    """The multiplier of ``unit``'s Melee defence: 1/4 if Isolated, else 1 (CWB Isolated Units).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U", isolation_rule=True),))
    >>> melee_defence_multiplier(state, Unit(name="A", side="U", men=10, isolated=True))
    Fraction(1, 4)
    """
    if unit.isolated and state.side(unit.side).isolation_rule:
        return ISOLATED_MELEE_DEFENCE
    return Fraction(1)


def melee_defence(state: CwbState, unit: Unit, strength: Fraction) -> Fraction:
    """``unit``'s exact Melee defence from its strength before isolation (CWB Isolated Units).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U", isolation_rule=True),))
    >>> melee_defence(state, Unit(name="A", side="U", men=10, isolated=True), Fraction(262))
    Fraction(131, 2)
    """
    return strength * melee_defence_multiplier(state, unit)


def _check_rule(state: CwbState, unit: Unit) -> None:
    if not state.side(unit.side).isolation_rule:
        raise IllegalAction(
            f"The Isolation Effects Optional Rule is not in use for {unit.side}; "
            "turn it on with /cwb params isolation:true.",
            rule=RULE,
        )


def _effect_steps(state: CwbState, unit: Unit) -> list[Step]:
    if not unit.isolated:
        return [Step(rule=RULE, text=f"{unit.name} is not Isolated: Melee defence ×1")]
    steps = [
        Step(rule=RULE, text=f"{unit.name} is Isolated: defends in Melee at ×1/4 strength"),
    ]
    if unit.type == "artillery" and state.isolated_artillery_own_ammo:
        steps.append(
            Step(
                rule=SUPPLY_RULE,
                text=f"Isolated battery {unit.name} tracks its own ammunition "
                f"({unit.ammo.label}) and rolls for ammo loss when it fires",
            )
        )
    return steps


def set_isolation(state: CwbState, unit_name: str, isolated: bool) -> Outcome[CwbState]:
    """Record the Isolation test's result for one unit (CWB Isolated Units).

    :raises InvalidInput: unknown unit.
    :raises IllegalAction: the optional rule is not in use for the unit's side.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U"),), units=(Unit(name="A", side="U", men=10),))
    >>> set_isolation(state, "A", True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: The Isolation Effects Optional Rule is not in use for U; ...
    """
    unit = state.unit(unit_name)
    _check_rule(state, unit)
    new_unit = unit.model_copy(update={"isolated": isolated})
    new_state = state.with_unit(new_unit)
    return CwbOutcome(
        state=new_state,
        steps=tuple(_effect_steps(new_state, new_unit)),
        facts=((unit.name, "Isolated" if isolated else "not Isolated"),),
    )


def isolation_test(state: CwbState, side_name: str) -> Outcome[CwbState]:
    """The start of a side's turn: the Isolation test of its units (CWB Isolated Units).

    With the optional rule in use, each of the side's units placed on the registered map is
    traced; a unit without a hex, or every unit when no map is registered, keeps its recorded
    flag, which the players declare with ``/cwb isolation``. Without the optional rule no unit
    is tested and the turn is simply recorded. Either way the side's units that are Low or Out
    Of Ammo are listed: the start of its Movement Phase is when wagons resupply them.

    :raises InvalidInput: unknown side.

    >>> from rules_core.cwb.state import HexMap, SideData
    >>> state = CwbState(sides=(SideData(name="U", isolation_rule=True),),
    ...                  map=HexMap(columns=3, rows=3),
    ...                  units=(Unit(name="A", side="U", men=10, hex=(1, 1)),))
    >>> isolation_test(state, "U").facts
    (('turn', 'U'), ('A', 'not Isolated'))
    >>> isolation_test(CwbState(sides=(SideData(name="U"),)), "U").explanation()[1]
    'CWB Isolated Units: The Isolation Effects Optional Rule is not in use for U: no unit is tested'
    """
    side = state.side(side_name)
    steps: list[Step] = [Step(rule=RULE, text=f"Start of the turn of {side.name}")]
    facts: list[tuple[str, str]] = [("turn", side.name)]
    new_state = state
    if not side.isolation_rule:
        steps.append(
            Step(
                rule=RULE,
                text=f"The Isolation Effects Optional Rule is not in use for {side.name}: "
                "no unit is tested",
            )
        )
    else:
        for unit in state.units:
            if unit.side != side.name:
                continue
            if unit.hex is None or state.map is None:
                where = "has no hex" if state.map is not None else "is not traced (no map)"
                steps.append(
                    Step(
                        rule=RULE,
                        text=f"{unit.name} {where}: its flag stays "
                        f"{'Isolated' if unit.isolated else 'not Isolated'}; declare the "
                        "test's result with /cwb isolation",
                    )
                )
                continue
            trace = isolation_trace(state, unit)
            isolated = trace is None
            if trace is None:
                how = (
                    f"no line of hexes from {format_hex(unit.hex)} reaches a map edge, Blocked "
                    "or Supply Source hex outside empty enemy ZOC"
                )
            else:
                how = "line " + " → ".join(format_hex(h) for h in trace)
            steps.append(Step(rule=RULE, text=f"{unit.name}: {how}"))
            new_unit = unit.model_copy(update={"isolated": isolated})
            new_state = new_state.with_unit(new_unit)
            steps.extend(_effect_steps(new_state, new_unit))
            facts.append((unit.name, "Isolated" if isolated else "not Isolated"))
    short = [
        f"{u.name} ({u.ammo.label})"
        for u in new_state.units
        if u.side == side.name and u.ammo is not Ammo.NORMAL
    ]
    if short:
        steps.append(
            Step(
                rule=SUPPLY_RULE,
                text=f"Low or Out Of Ammo: {', '.join(short)} — morale checks −1 "
                f"({MORALE_PLAYERS}); Supply Wagons resupply them at the start of the Movement "
                "Phase (/cwb supply or /cwb resupply)",
            )
        )
    return CwbOutcome(state=new_state, steps=tuple(steps), facts=tuple(facts))


def melee(state: CwbState, unit_name: str, strength: int | None = None) -> Outcome[CwbState]:
    """Report a unit's Melee defence strength as an exact fraction (CWB Isolated Units).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U", isolation_rule=True),),
    ...                  units=(Unit(name="A", side="U", men=262, isolated=True),))
    >>> melee(state, "A").facts
    (('A melee defence', '131/2'),)
    """
    unit = state.unit(unit_name)
    if strength is not None and strength < 0:
        raise InvalidInput(f"A melee strength cannot be {strength}.")
    base = Fraction(unit.men if strength is None else strength)
    multiplier = melee_defence_multiplier(state, unit)
    value = base * multiplier
    text = f"{unit.name} defends in Melee at {base} × {multiplier} = {value}"
    if multiplier != 1:
        text += " (Isolated; the caller rounds)"
    return CwbOutcome(
        state=state,
        steps=(Step(rule=RULE, text=text),),
        facts=((f"{unit.name} melee defence", str(value)),),
    )


__all__ = [
    "ISOLATED_MELEE_DEFENCE",
    "RULE",
    "isolation_test",
    "melee",
    "melee_defence",
    "melee_defence_multiplier",
    "set_isolation",
]
