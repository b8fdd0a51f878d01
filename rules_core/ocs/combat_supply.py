"""Combat supply for attackers and defenders, and internal stocks (OCS 12.4, 12.10a-h).

>>> attacker_cost(Unit(name="16 Pz Div", side="Axis", steps=3))
3
>>> defender_cost([Unit(name="a", side="Axis", re=Fraction(1, 2))])
1
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Attack, Defend
from rules_core.ocs.draw import SupplySource, supply_source
from rules_core.ocs.state import InternalStocks, OcsOutcome, OcsState, Unit
from rules_core.ocs.strength import supply_multiplier
from rules_core.ocs.tokens import format_tokens
from rules_core.outcome import Fact, Outcome, Step
from rules_core.words import counted

INTERNALS_AFTER_USE: dict[InternalStocks, InternalStocks | None] = {
    # OCS 12.10b: NONE -> Low; Low -> Exhausted; Exhausted cannot be used (12.10c).
    "NONE": "LOW",
    "LOW": "EXHAUSTED",
    "EXHAUSTED": None,
}
"""OCS 12.10b-c: the internal-stocks marker after a unit uses its internals."""


def attacker_cost(unit: Unit, *, dak_brigades: bool = False) -> int:
    """Tokens an attacking unit needs: 1 T per step; DAK: a 2-step brigade costs 1 T (OCS 12.4).

    >>> attacker_cost(Unit(name="b", side="Axis", steps=2, brigade=True), dak_brigades=True)
    1
    >>> attacker_cost(Unit(name="b", side="Axis", steps=2, brigade=True))
    2
    >>> attacker_cost(Unit(name="Kg", side="Axis", steps=2), dak_brigades=True)
    2
    """
    if dak_brigades and unit.brigade and unit.steps == 2:
        return 1
    return unit.steps


def defender_cost(defenders: Sequence[Unit]) -> int:
    """Tokens a defence needs: 2 T per combat, 1 T if 1 RE or less defends (OCS 12.4).

    >>> defender_cost([Unit(name="a", side="Axis", re=Fraction(3, 2))])
    2
    """
    total_re = sum((u.re for u in defenders), Fraction(0))
    return 1 if total_re <= 1 else 2


def _combat_units(state: OcsState, names: Sequence[str]) -> list[Unit]:
    units = state.side_units(names)
    for unit in units:
        if not unit.is_combat_unit:
            raise IllegalAction(
                f"{unit.name} is a Transport Point counter; only combat units use combat supply.",
                rule="OCS 12.9a",
            )
        if unit.location != "map":
            raise IllegalAction(f"{unit.name} is not on the map.", rule="OCS 12.4")
        if unit.steps == 0:
            raise InvalidInput(f"{unit.name} has no steps left.")
    return units


def check_no_supply_underfoot(state: OcsState, units: Sequence[Unit], source: SupplySource) -> None:
    """Refuse internal stocks to a unit standing on its side's unnamed dump (OCS 12.10a, 12.4).

    Internals are used only when no on-map SP can be had; SP in the unit's own hex are reached
    at 0 MP, so the bot, which knows every unit's and dump's hex, needs no one to name them.
    SP on Organic Trucks are the exception (12.10a): they never oblige a unit to use them.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=4),),
    ...              units=(Unit(name="Bn", side="Axis", hex="A1"),))
    >>> check_no_supply_underfoot(s, s.units, SupplySource("Axis", (), None, ()))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Bn stands on Axis's dump in A1 (1 SP), reached at 0 MP: ...
    """
    for unit in units:
        if unit.hex is None or unit.hex in source.dumps:
            continue
        held = state.supply_held(unit.hex, unit.side, organic=False)
        if held:
            raise IllegalAction(
                f"{unit.name} stands on {unit.side}'s dump in {unit.hex} "
                f"({format_tokens(held)}), reached at 0 MP: internal stocks are used only when "
                f"no on-map supply can be had; name it (dump:{unit.hex}).",
                rule="OCS 12.10a",
            )


def _source(state: OcsState, action: Attack | Defend, side: str) -> SupplySource:
    return supply_source(state, side, action.dump, action.hq, action.draw_mp, action.throw_mp)


def resolve_attack(state: OcsState, action: Attack) -> Outcome[OcsState]:
    """Pay combat supply for an attack, falling back to internals unit by unit (OCS 12.4, 12.10).

    Units pay on-map supply while enough is reachable — Exhausted units first (they have no
    internals to fall back on, 12.10c), then in the order given; the rest use their internal
    stocks (12.10a-b). A single counter never mixes the two (12.10g); a multi-step unit
    on internals still spends the reachable on-map supply, up to its need (12.10h).
    The attack is refused, naming each unit and what it lacks, when any unit cannot be supplied.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=4),),
    ...              units=(Unit(name="1 Bn", side="Axis"),))
    >>> resolve_attack(s, Attack(attackers=("1 Bn",), dump="A1")).state.dumps[0].tokens
    3
    """
    units = _combat_units(state, action.attackers)
    side = units[0].side
    source = _source(state, action, side)
    available = source.available(state, organic=action.organic)
    dak = state.options.dak_brigades
    costs = {u.name: attacker_cost(u, dak_brigades=dak) for u in units}
    left = available
    on_map: list[Unit] = []
    exhausted_first = sorted(units, key=lambda u: u.internals != "EXHAUSTED")
    for unit in exhausted_first:
        if costs[unit.name] <= left:
            left -= costs[unit.name]
            on_map.append(unit)
    on_map = [u for u in units if u in on_map]
    internal = [u for u in units if u not in on_map]
    check_no_supply_underfoot(state, internal, source)
    lacking = [u for u in internal if INTERNALS_AFTER_USE[u.internals] is None]
    if lacking:
        parts = [
            f"{u.name} needs {format_tokens(costs[u.name])} and its internal stocks are Exhausted"
            for u in lacking
        ]
        raise IllegalAction(
            f"The attack cannot be fully supplied: {'; '.join(parts)}; "
            "drop those units or find more supply.",
            rule="OCS 12.4",
        )
    steps: list[Step] = list(source.steps)
    facts: list[Fact] = []
    changed: list[Unit] = []
    for unit in on_map:
        steps.append(
            Step(
                rule="OCS 12.4",
                text=f"{unit.name}: {counted(unit.steps, 'step')} "
                f"pay {format_tokens(costs[unit.name])}"
                + (f" from {source.where}" if source.dumps else ""),
            )
        )
        facts.append((unit.name, f"paid {format_tokens(costs[unit.name])}"))
    wasted = 0
    for unit in internal:
        new_level = INTERNALS_AFTER_USE[unit.internals]
        assert new_level is not None
        changed.append(unit.model_copy(update={"internals": new_level}))
        reason = "no on-map supply is reachable" if available == 0 else "on-map supply is short"
        steps.append(
            Step(
                rule="OCS 12.10b",
                text=f"{unit.name}: {reason}; uses internal stocks, marked {new_level}",
            )
        )
        facts.append((unit.name, f"internals: {new_level}"))
        if unit.steps > 1 and left > 0:
            spent = min(left, costs[unit.name])
            left -= spent
            wasted += spent
            steps.append(
                Step(
                    rule="OCS 12.10h",
                    text=f"{unit.name} cannot mix supply for itself (12.10g); the reachable "
                    f"{format_tokens(spent)} is spent all the same (wasted)",
                )
            )
    for unit in (u for u in units if u.out_of_supply):
        multiplier = supply_multiplier("attack", out_of_supply=True, supplied=True)
        steps.append(
            Step(rule="OCS 12.8d", text=f"{unit.name} is Out of Supply: attacks ×{multiplier}")
        )
    new_state = source.spend(state.with_units(*changed), available - left, organic=action.organic)
    paid = available - left
    if paid:
        facts.append(("Dump", f"-{format_tokens(paid)}"))
    if wasted:
        facts.append(("Wasted", format_tokens(wasted)))
    return OcsOutcome(state=new_state, steps=tuple(steps), facts=tuple(facts))


def resolve_defend(state: OcsState, action: Defend) -> Outcome[OcsState]:
    """Pay (or withhold) a defence's combat supply; show each defender's multiplier (OCS 12.4).

    On-map supply pays the whole combat when enough is reachable; otherwise each defender uses
    its own internal stocks (12.10a-b, 12.10d); an Exhausted unit defends without combat supply
    (12.10c): ×1/2, or ×1/4 when marked Out of Supply (12.8d). A lone multi-step defender on
    internals still spends the short on-map supply it reaches (12.10g-h).

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="1 Bn", side="Axis", re=Fraction(1, 2),
    ...              internals="EXHAUSTED"),))
    >>> resolve_defend(s, Defend(defenders=("1 Bn",))).facts
    (('1 Bn', 'defends ×1/2'),)
    """
    units = _combat_units(state, action.defenders)
    hexes = sorted({u.hex for u in units if u.hex is not None})
    if len(hexes) > 1:
        raise IllegalAction(
            f"The defenders of one combat stand in one hex; these stand in {', '.join(hexes)}: "
            "each hex's defence pays for its own combat (one /ocs defend per hex).",
            rule="OCS 12.4",
        )
    side = units[0].side
    if action.withhold and (
        action.dump is not None
        or action.hq is not None
        or action.draw_mp is not None
        or action.throw_mp is not None
    ):
        raise InvalidInput(
            "Withheld combat supply is drawn from no dump: leave out dump, hq, draw-mp and "
            "throw-mp, or do not withhold."
        )
    source = _source(state, action, side)
    available = source.available(state, organic=action.organic)
    cost = defender_cost(units)
    total_re = sum((u.re for u in units), Fraction(0))
    steps: list[Step] = [
        *source.steps,
        Step(
            rule="OCS 12.4",
            text=f"defending RE {total_re}: the defence costs {format_tokens(cost)}"
            + (" (1 RE or less)" if cost == 1 else ""),
        ),
    ]
    facts: list[Fact] = []
    changed: list[Unit] = []
    supplied: dict[str, bool] = {}
    left = available
    if action.withhold:
        steps.append(
            Step(rule="OCS 12.4", text="combat supply withheld: the defenders are unsupplied")
        )
        supplied = {u.name: False for u in units}
    elif cost <= available:
        left = available - cost
        steps.append(Step(rule="OCS 12.4", text=f"{format_tokens(cost)} paid from {source.where}"))
        supplied = {u.name: True for u in units}
        facts.append(("Dump", f"-{format_tokens(cost)}"))
    else:
        check_no_supply_underfoot(state, units, source)
        for unit in units:
            new_level = INTERNALS_AFTER_USE[unit.internals]
            if new_level is None:
                supplied[unit.name] = False
                steps.append(
                    Step(
                        rule="OCS 12.10c",
                        text=f"{unit.name}: internals Exhausted; defends without combat supply",
                    )
                )
            else:
                supplied[unit.name] = True
                changed.append(unit.model_copy(update={"internals": new_level}))
                steps.append(
                    Step(
                        rule="OCS 12.10b",
                        text=f"{unit.name}: no on-map supply; uses internals, marked {new_level}",
                    )
                )
                facts.append((f"{unit.name} internals", new_level))
        lone = units[0] if len(units) == 1 else None
        if lone is not None and lone.steps > 1 and supplied[lone.name] and available > 0:
            # 12.10g: a single counter cannot mix; 12.10h: the reachable on-map
            # supply is spent all the same, up to the defence's cost
            wasted = min(available, cost)
            left = available - wasted
            steps.append(
                Step(
                    rule="OCS 12.10h",
                    text=f"{lone.name} cannot mix supply for itself (12.10g); the reachable "
                    f"{format_tokens(wasted)} is spent all the same (wasted)",
                )
            )
            facts.append(("Dump", f"-{format_tokens(wasted)}"))
            facts.append(("Wasted", format_tokens(wasted)))
    for unit in units:
        multiplier = supply_multiplier(
            "defend", out_of_supply=unit.out_of_supply, supplied=supplied[unit.name]
        )
        assert multiplier is not None
        state_text = "Out of Supply, " if unit.out_of_supply else ""
        state_text += "with combat supply" if supplied[unit.name] else "without combat supply"
        steps.append(
            Step(rule="OCS 12.8d", text=f"{unit.name} ({state_text}) defends ×{multiplier}")
        )
        facts.append((unit.name, f"defends ×{multiplier}"))
    new_state = source.spend(state.with_units(*changed), available - left, organic=action.organic)
    return OcsOutcome(state=new_state, steps=tuple(steps), facts=tuple(facts))


__all__ = [
    "INTERNALS_AFTER_USE",
    "attacker_cost",
    "check_no_supply_underfoot",
    "defender_cost",
    "resolve_attack",
    "resolve_defend",
]
