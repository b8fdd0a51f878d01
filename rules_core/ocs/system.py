"""The OCS game system: builds states, says who acts, resolves every ``/ocs`` command.

>>> from rules_core.dice import ScriptedDice
>>> state = SYSTEM.new_state(["Axis", "Soviet"], {"dak_brigades": True})
>>> state.options.dak_brigades
True
>>> out = SYSTEM.resolve(state, DumpAdd(side="Axis", hex="0905", amount="1 SP"), ScriptedDice([]))
>>> out.explanation()
['OCS 12.1a: Axis dump in 0905: 0 T + 1 SP = 1 SP']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from rules_core.dice import Dice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import (
    ACTION_TYPES,
    AnyOcsAction,
    Attack,
    Attrition,
    Blow,
    Breakout,
    Capture,
    Cleanup,
    Defend,
    DumpAdd,
    DumpAdjust,
    DumpList,
    Extender,
    FuelAction,
    Load,
    OcsAction,
    Recover,
    SetPhase,
    Special,
    Strength,
    Trace,
    UnitAdd,
    UnitChange,
    UnitList,
    UnitMove,
    UnitRemove,
)
from rules_core.ocs.attrition import apply_attrition, plan_attrition, roll_attrition
from rules_core.ocs.breakout import (
    apply_breakout,
    plan_breakout,
    roll_breakout,
    transport_breakout_odds,
)
from rules_core.ocs.capture import apply_capture, capture_odds, plan_capture, roll_capture
from rules_core.ocs.combat_supply import resolve_attack, resolve_defend
from rules_core.ocs.dumps import (
    apply_blow,
    plan_blow,
    resolve_dump_add,
    resolve_dump_adjust,
    resolve_dump_list,
    roll_blow,
)
from rules_core.ocs.forces import forces as ocs_forces
from rules_core.ocs.fuel import resolve_cleanup, resolve_fuel
from rules_core.ocs.internal_stocks import resolve_recover
from rules_core.ocs.phases import check_phase, record_phase, resolve_phase
from rules_core.ocs.special import resolve_special
from rules_core.ocs.state import OcsOptions, OcsOutcome, OcsState
from rules_core.ocs.strength import combined_arms_multiplier, supply_multiplier
from rules_core.ocs.summary import table_summary
from rules_core.ocs.trace import resolve_trace
from rules_core.ocs.transport import resolve_extender, resolve_load
from rules_core.ocs.units import (
    parse_re,
    resolve_unit_add,
    resolve_unit_change,
    resolve_unit_list,
    resolve_unit_move,
    resolve_unit_remove,
)
from rules_core.odds import exact_odds
from rules_core.outcome import Fact, Outcome, Step
from rules_core.system import GameSystem


def _defender_codes(state: OcsState, names: Sequence[str]) -> list[str]:
    codes: list[str] = []
    for name in names:
        unit = state.unit(name.strip())
        codes.append(unit.arms)
        if unit.antitank:
            codes.append("antitank")
    return codes


def resolve_strength(state: OcsState, action: Strength) -> Outcome[OcsState]:
    """A unit's supply and combined-arms multipliers as exact fractions (12.8d, v3 9.4e).

    >>> from rules_core.ocs.state import Unit
    >>> s = OcsState(sides=("Axis",), units=(Unit(name="Pz", side="Axis", out_of_supply=True),))
    >>> resolve_strength(s, Strength(unit="Pz", mode="defend", supplied=False, strength=6)).facts
    (('Pz', 'defends ×1/4 = 3/2'),)
    """
    unit = state.unit(action.unit)
    if action.mode == "defend" and (action.terrain_x2 or action.defenders or action.hedgehog):
        raise IllegalAction(
            "terrain-x2, defenders and hedgehog are the attacker's Combined Arms (v3 9.4e: "
            '"Attacking Armor", "Attacking Mech"); a defending unit takes none of them.',
            rule="OCS 9.4e",
        )
    multiplier = supply_multiplier(
        action.mode, out_of_supply=unit.out_of_supply, supplied=action.supplied
    )
    status = "Out of Supply" if unit.out_of_supply else "in trace supply"
    paid = "combat supply paid" if action.supplied else "no combat supply"
    if multiplier is None:
        return OcsOutcome(
            state=state,
            steps=(Step(rule="OCS 12.4", text=f"{unit.name} ({status}, {paid}) may not attack"),),
            facts=((unit.name, "may not attack"),),
        )
    steps = [Step(rule="OCS 12.8d", text=f"{unit.name} ({status}, {paid}): ×{multiplier}")]
    total = multiplier
    if action.mode == "attack" and (action.terrain_x2 or action.defenders or action.hedgehog):
        arms = combined_arms_multiplier(
            unit.arms,
            _defender_codes(state, action.defenders),
            terrain_x2=action.terrain_x2,
            hedgehog=action.hedgehog,
        )
        total *= arms
        steps.append(
            Step(
                rule="OCS 9.4e",
                text=f"{unit.name} ({unit.arms}) terrain multiplier ×{arms}"
                + (" (Combined Arms)" if action.terrain_x2 and arms != 2 else ""),
            )
        )
    verb = "attacks" if action.mode == "attack" else "defends"
    result = f"{verb} ×{total}"
    if action.strength is not None:
        result += f" = {action.strength * total}"
    return OcsOutcome(state=state, steps=tuple(steps), facts=((unit.name, result),))


class OcsSystem(GameSystem[OcsState, AnyOcsAction]):
    """Operational Combat Series supply (rules 12.0, v3 charts)."""

    name = "ocs"
    title = "Operational Combat Series"
    rules_version: ClassVar[int] = 5
    """5: a Breakout only in the owner's Breakout Segment — its Supply Phase or Movement Phase
    (12.8e; 4 accepted one in any phase once phases were tracked), and no capture in a Supply or
    Clean Up Phase (12.11b; 4 rolled one there); a trace check refuses the options only eating
    reads, a withheld defence a dump, a special purpose the close terrain or engineer it does not
    read (4 dropped them). 4: the replies count in English ("1 step", "2 points", "in 1 turn": 3
    wrote "step(s)", "point(s)", "turn(s)", in steps and facts alike; "1 of 2 points succeeds"), and
    a Transport Points counter added is counted in points. 3: what the bot knows from the units' and
    dumps' hexes, it checks (issue 23): no internal stocks for a unit standing on its side's dump
    (12.10a), no Supply Phase ending with a marked unit on its dump unrecovered and no eating before
    the recovery of a marked unit that reaches the dump (12.10e A), one Attrition roll per stack
    (chart 12.8), the ground and the loads in a hex one dump for blowing (12.1b, 12.11a), a capture
    only by a unit in the hex and in the Movement Phase as tracked (12.11b), a Breakout's return
    from the game's turn (12.8e), the defenders of one combat in one hex (12.4). 2: a unit's name
    differing from another's only in case is refused (1 accepted "Pz" beside "pz")."""
    state_type = OcsState
    action_types = ACTION_TYPES
    action_adapter: TypeAdapter[AnyOcsAction] = TypeAdapter(OcsAction)

    def new_state(self, sides: Sequence[str], options: Mapping[str, Any]) -> OcsState:
        """A fresh state; ``options`` are the OCS options (unknown ones are refused).

        >>> SYSTEM.new_state(["Axis", "Soviet"], {"ocs_rounding": "half-even"}).options.ocs_rounding
        'half-even'
        """
        names = tuple(s.strip() for s in sides)
        if not names or len(set(names)) != len(names) or not all(names):
            raise InvalidInput("Give each side a distinct, non-empty name.")
        known = set(OcsOptions.model_fields)
        unknown = sorted(set(options) - known)
        if unknown:
            raise InvalidInput(
                f"Unknown OCS option {unknown[0]!r}; the options are {', '.join(sorted(known))}."
            )
        try:
            flags = OcsOptions.model_validate(dict(options))
        except ValidationError as exc:
            raise InvalidInput(f"Bad OCS option: {exc.errors()[0]['msg']}.") from exc
        return OcsState(sides=names, options=flags)

    def acting_side(self, state: OcsState, action: AnyOcsAction) -> str | None:
        """The side whose units or dump the action uses; ``None`` for listings (OCS 12.1d).

        >>> s = SYSTEM.new_state(["Axis", "Soviet"], {})
        >>> SYSTEM.acting_side(s, DumpAdd(side="Soviet", hex="A1", amount="1 SP"))
        'Soviet'
        """
        if isinstance(
            action,
            DumpAdd | DumpAdjust | Recover | Blow | Capture | Cleanup | UnitAdd | Special,
        ):
            return action.side
        if isinstance(action, SetPhase):
            # the side whose phase it is hands the turn on; the first phase is its own side's
            return action.side if state.phase_side is None else None
        if isinstance(action, Attack | Defend):
            names = action.attackers if isinstance(action, Attack) else action.defenders
            return state.unit(names[0].strip()).side if names else None
        if isinstance(action, Load):
            return state.unit(action.transport.strip()).side
        if isinstance(action, Extender):
            return state.unit(action.units[0].strip()).side if action.units else None
        if isinstance(action, Trace | Attrition):
            return state.unit(action.units[0].strip()).side if action.units else None
        if isinstance(action, Breakout | UnitChange | UnitMove | UnitRemove):
            return state.unit(action.unit.strip()).side
        if isinstance(action, FuelAction):
            if action.side is not None:
                return action.side
            if action.method == "formation":
                members = [u for u in state.units if u.formation == action.target]
                return members[0].side if members else None
            return state.unit(action.target).side
        return None

    def resolve(self, state: OcsState, action: AnyOcsAction, dice: Dice) -> Outcome[OcsState]:
        """Validate and resolve one ``/ocs`` command; refusals are raised before any die (OCS 12).

        >>> from rules_core.dice import ScriptedDice
        >>> s = SYSTEM.new_state(["Axis", "Soviet"], {})
        >>> SYSTEM.resolve(s, DumpAdd(side="Axis", hex="A1", amount="2T"), ScriptedDice([])).facts
        (('Dump A1', '2 T'),)
        """
        check_phase(state, action)
        outcome = self._resolve(state, action, dice)
        recorded = record_phase(state, action, outcome.state)
        if recorded is outcome.state:
            return outcome
        return outcome.model_copy(update={"state": recorded})

    def _resolve(self, state: OcsState, action: AnyOcsAction, dice: Dice) -> Outcome[OcsState]:
        if isinstance(action, Attrition):
            plan_a = plan_attrition(state, action)
            return apply_attrition(state, plan_a, roll_attrition(plan_a, dice))
        if isinstance(action, Breakout):
            plan_b = plan_breakout(state, action)
            return apply_breakout(state, plan_b, roll_breakout(plan_b, dice))
        if isinstance(action, Blow):
            plan_d = plan_blow(state, action)
            return apply_blow(state, plan_d, roll_blow(plan_d, dice))
        if isinstance(action, Capture):
            plan_c = plan_capture(state, action)
            return apply_capture(state, plan_c, roll_capture(plan_c, dice))
        handler = _HANDLERS.get(type(action))
        if handler is None:  # pragma: no cover - every action type has a handler
            raise InvalidInput(f"Unknown OCS action {action.action!r}.")
        return handler(state, action)

    def odds(self, state: OcsState, action: AnyOcsAction) -> dict[tuple[Fact, ...], Fraction]:
        """Exact odds by the outcome's facts, enumerating only the dice (no state is built).

        Dump Blowing (chart 12.11a) of 1 T: 25 % rounds to 0 T on a 1, the rest destroy 1 T.

        >>> from rules_core.ocs.state import Dump
        >>> s = SYSTEM.new_state(["Axis"], {}).model_copy(
        ...     update={"dumps": (Dump(side="Axis", hex="A1", tokens=4),)})
        >>> SYSTEM.odds(s, Blow(side="Axis", dump="A1", amount="1 T"))
        {(('Destroyed', '0 T'),): Fraction(1, 6), (('Destroyed', '1 T'),): Fraction(5, 6)}
        """
        check_phase(state, action)
        if isinstance(action, Attrition):
            plan_a = plan_attrition(state, action)
            return exact_odds(lambda dice: roll_attrition(plan_a, dice).facts)
        if isinstance(action, Breakout):
            plan_b = plan_breakout(state, action)
            if plan_b.points > 1:
                return transport_breakout_odds(plan_b)
            return exact_odds(lambda dice: roll_breakout(plan_b, dice).facts)
        if isinstance(action, Blow):
            plan_d = plan_blow(state, action)
            return exact_odds(lambda dice: roll_blow(plan_d, dice).facts)
        if isinstance(action, Capture):
            return capture_odds(plan_capture(state, action))
        return super().odds(state, action)

    def forces(self, state: OcsState) -> list[BaseModel]:
        """The game's current forces as set-up commands (see :mod:`rules_core.ocs.forces`)."""
        return ocs_forces(state)

    def summary(self, state: OcsState) -> list[str]:
        """``/game status``: dumps per side in SP/T, Out of Supply, Low, Exhausted, fuel (OCS 12).

        >>> SYSTEM.summary(SYSTEM.new_state(["Axis", "Soviet"], {}))
        ['Axis dumps: none', 'Soviet dumps: none']
        """
        return table_summary(state)

    def owner_side(
        self, state: OcsState, kind: str, name: str, acting: str | None = None
    ) -> str | None:
        """The side of a named unit (or formation, or HQ's units) or dump now (OCS 12.1d).

        A dump is one side's supply in a hex: the acting side's own dump there if it has one,
        else the side whose dump it is.

        >>> from rules_core.ocs.state import Dump
        >>> s = SYSTEM.new_state(["Axis", "Soviet"], {}).model_copy(
        ...     update={"dumps": (Dump(side="Soviet", hex="0905", tokens=4),)})
        >>> SYSTEM.owner_side(s, "dump", "0905", "Axis")
        'Soviet'
        """
        if kind == "unit":
            for unit in state.units:
                if unit.name == name:
                    return unit.side
            members = {u.side for u in state.units if name in (u.formation, u.hq)}
            return members.pop() if len(members) == 1 else None
        if kind == "dump" and "," in name:  # one or more dumps (12.3a)
            sides = {self.owner_side(state, kind, part.strip(), acting) for part in name.split(",")}
            return sides.pop() if len(sides) == 1 else None
        if kind == "dump":
            if acting is not None and state.dump_at(name, acting) is not None:
                return acting
            owners = {d.side for d in state.dumps if d.hex == name}
            owners |= {u.side for u in state.units if u.hex == name and u.load_tokens}
            return owners.pop() if len(owners) == 1 else None
        return super().owner_side(state, kind, name, acting)

    def turn_side(self, state: OcsState) -> str | None:
        """The side whose phase it is, once phases are tracked (``/ocs phase``).

        >>> SYSTEM.turn_side(SYSTEM.new_state(["Axis", "Soviet"], {})) is None
        True
        """
        return state.phase_side

    def names(self, state: OcsState, kind: str) -> list[str]:
        """Autocomplete: ``unit`` names, ``dump`` hexes, ``side`` names (OCS 12.1b dumps).

        >>> SYSTEM.names(SYSTEM.new_state(["Axis", "Soviet"], {}), "side")
        ['Axis', 'Soviet']
        """
        if kind == "unit":
            return [u.name for u in state.units]
        if kind == "dump":
            hexes = [d.hex for d in state.dumps]
            hexes += [u.hex for u in state.units if u.load_tokens and u.hex]
            return list(dict.fromkeys(hexes))
        if kind == "side":
            return list(state.sides)
        return []


_HANDLERS: dict[type[Any], Callable[[OcsState, Any], Outcome[OcsState]]] = {
    DumpAdd: resolve_dump_add,
    DumpAdjust: resolve_dump_adjust,
    DumpList: resolve_dump_list,
    UnitAdd: resolve_unit_add,
    UnitList: resolve_unit_list,
    UnitChange: resolve_unit_change,
    UnitMove: resolve_unit_move,
    UnitRemove: resolve_unit_remove,
    Attack: resolve_attack,
    Defend: resolve_defend,
    FuelAction: resolve_fuel,
    Trace: resolve_trace,
    Recover: resolve_recover,
    Strength: resolve_strength,
    Cleanup: resolve_cleanup,
    SetPhase: resolve_phase,
    Load: resolve_load,
    Extender: resolve_extender,
    Special: resolve_special,
}

SYSTEM = OcsSystem()

__all__ = ["SYSTEM", "OcsSystem", "parse_re", "resolve_strength", "resolve_unit_add"]
