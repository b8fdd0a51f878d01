"""The turn as rules state: whose phase it is, and the order the supply rules impose on it.

Once the players track phases with ``/ocs phase`` the referee enforces the order of the Supply
Phase and the phases of the other supply rules:

* trace checks, recovery of internals and Attrition happen in the owner's Supply Phase
  (12.6, 12.10e, 12.8a); recovery comes before eating off the map (12.10e A);
* a Supply Phase ends only when every combat unit of the side on the map has had its trace
  check, and every stack marked Out of Supply has checked for Attrition (12.6d, 12.8a);
* a stack checks for Attrition once per Supply Phase (chart 12.8), after its trace check;
* dumps are blown in the Movement Segments of the owner's Movement, Reaction and Exploitation
  Phases (12.11a), once per dump per phase;
* a unit breaks out in its own side's Breakout Segment: its Supply Phase, after the trace check
  it failed, or its Movement Phase before the Movement Segment's barrages (12.8e, reading 20);
* single-unit fuel ends with its phase (12.5c C); the Clean Up Phase ends Fuel markers (12.5d).

A game that never uses ``/ocs phase`` keeps the untracked behaviour (no phase is enforced).

>>> s = OcsState(sides=("Axis", "Soviet"))
>>> resolve_phase(s, SetPhase(side="Axis", phase="supply", turn=1)).facts
(('Phase', 'Axis Supply Phase, turn 1'),)
"""

from __future__ import annotations

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import (
    AnyOcsAction,
    Attrition,
    Blow,
    Breakout,
    Recover,
    SetPhase,
    Trace,
)
from rules_core.ocs.attrition import attrition_stack
from rules_core.ocs.draw import dump_hexes
from rules_core.ocs.fuel import end_fuel
from rules_core.ocs.state import OcsOutcome, OcsState, Phase, Unit
from rules_core.ocs.tokens import format_tokens
from rules_core.outcome import Outcome, Step

PHASE_NAMES: dict[Phase, str] = {
    "supply": "Supply Phase",
    "movement": "Movement Phase",
    "reaction": "Reaction Phase",
    "combat": "Combat Phase",
    "exploitation": "Exploitation Phase",
    "cleanup": "Clean Up Phase",
}
"""The phases as the rules name them."""

BLOWING_PHASES: tuple[Phase, ...] = ("movement", "reaction", "exploitation")
"""OCS 12.11a: dumps are blown in the Movement Segments of these phases (the owner's own)."""

BREAKOUT_PHASES: tuple[Phase, ...] = ("supply", "movement")
"""OCS 12.8e "During their Breakout Segment" (reading 20): the owner's Supply Phase, where its
trace check fails, or its Movement Phase, which the Breakout Segment begins."""


def phase_name(state: OcsState) -> str:
    """``Axis Supply Phase`` — the current phase as players say it (untracked: "no phase").

    >>> phase_name(OcsState(sides=("Axis",), phase="movement", phase_side="Axis"))
    "Axis's Movement Phase"
    """
    if state.phase is None:
        return "no phase"
    return f"{state.phase_side}'s {PHASE_NAMES[state.phase]}"


def _phase_and_segment(state: OcsState) -> str:
    """The phase as players say it, and its segment unless the movement one: ``Axis's Movement
    Phase (barrage segment)``.

    >>> _phase_and_segment(OcsState(sides=("Axis",), phase="movement", phase_side="Axis",
    ...                             segment="barrage"))
    "Axis's Movement Phase (barrage segment)"
    """
    segment = "" if state.segment == "movement" else f" ({state.segment} segment)"
    return phase_name(state) + segment


def in_supply_phase(state: OcsState, side: str) -> bool:
    """Whether it is ``side``'s Supply Phase (always true when phases are not tracked).

    >>> in_supply_phase(OcsState(sides=("Axis",)), "Axis")
    True
    """
    return state.phase is None or (state.phase == "supply" and state.phase_side == side)


def _on_map_combat_units(state: OcsState, side: str) -> list[Unit]:
    return [
        u
        for u in state.units
        if u.side == side and u.location == "map" and u.is_combat_unit and u.steps > 0
    ]


def unfinished_supply_phase(state: OcsState) -> IllegalAction | None:
    """Why the current Supply Phase may not end yet, or ``None`` (OCS 12.6d, 12.8a).

    >>> s = OcsState(sides=("Axis",), phase="supply", phase_side="Axis",
    ...              units=(Unit(name="Bn", side="Axis"),))
    >>> unfinished_supply_phase(s)  # doctest: +ELLIPSIS
    IllegalAction('Bn has had no trace check this Supply Phase: record it with /ocs trace...')
    """
    if state.phase != "supply" or state.phase_side is None:
        return None
    units = _on_map_combat_units(state, state.phase_side)
    for unit in units:
        held = state.supply_held(unit.hex, unit.side, organic=False)
        if unit.internals != "NONE" and held:
            return IllegalAction(
                f"{unit.name} is marked {unit.internals.capitalize()} and stands on "
                f"{unit.side}'s dump in {unit.hex} "
                f"({format_tokens(held)}): marked units must recover before the Supply Phase "
                f"ends (/ocs recover side:{unit.side} dump:{unit.hex}).",
                rule="OCS 12.10e A",
            )
    unchecked = [u.name for u in units if u.name not in state.checked]
    if unchecked:
        verb = "has" if len(unchecked) == 1 else "have"
        return IllegalAction(
            f"{', '.join(unchecked)} {verb} had no trace check this Supply Phase: record it with "
            "/ocs trace (traced, eat or none).",
            rule="OCS 12.6",
        )
    starving = [u.name for u in units if u.out_of_supply and u.name not in state.attrition_checked]
    if starving:
        return IllegalAction(
            f"{', '.join(starving)} {'is' if len(starving) == 1 else 'are'} Out of Supply and "
            "must check for Attrition at the end of every friendly Supply Phase (/ocs attrition).",
            rule="OCS 12.8a",
        )
    return None


def check_phase(state: OcsState, action: AnyOcsAction) -> None:
    """Refuse an action the current phase does not allow (OCS 12.6, 12.8a, 12.10e, 12.11a).

    :raises IllegalAction: with the rule, before any die is rolled.

    >>> s = OcsState(sides=("Axis", "Soviet"), phase="movement", phase_side="Soviet")
    >>> check_phase(s, Blow(side="Axis", dump="A1", amount="1 SP"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Axis blows dumps only in the Movement Segments of its own...
    """
    if state.phase is None:
        return
    if isinstance(action, Blow):
        own = state.phase_side == action.side and state.phase in BLOWING_PHASES
        if not own or state.segment != "movement":
            raise IllegalAction(
                f"{action.side} blows dumps only in the Movement Segments of its own Movement, "
                f"Reaction and Exploitation Phases; it is {_phase_and_segment(state)}.",
                rule="OCS 12.11a",
            )
        return
    if isinstance(action, Breakout):
        _check_breakout_segment(state, action)
        return
    if isinstance(action, Trace | Attrition | Recover):
        if isinstance(action, Recover):
            side = action.side
        else:
            side = state.unit(action.units[0].strip()).side if action.units else ""
        if side and not in_supply_phase(state, side):
            what = {
                Trace: ("Trace supply is checked", "OCS 12.6"),
                Attrition: ("Attrition is checked", "OCS 12.8a"),
                Recover: ("Internal stocks recover", "OCS 12.10e"),
            }[type(action)]
            raise IllegalAction(
                f"{what[0]} in the owner's Supply Phase; it is {phase_name(state)}.",
                rule=what[1],
            )
    if isinstance(action, Trace) and action.status == "eat" and action.dump is not None:
        _check_recovery_before_eating(state, action)
    if isinstance(action, Trace) and action.status == "traced" and action.hq is not None:
        hq = action.hq.strip()
        for name in action.units:
            unit = state.unit(name.strip())
            if unit.formation is None:
                continue
            used = dict(state.trace_sources).get(unit.formation)
            if used is not None and used != hq:
                raise IllegalAction(
                    f"{unit.formation} traces through {used} this Supply Phase; {unit.name} "
                    f"traces to the same HQ, or eats off the map, or is Out of Supply.",
                    rule="OCS 12.6f",
                )
    if isinstance(action, Attrition):
        _check_attrition(state, action)


def _check_breakout_segment(state: OcsState, action: Breakout) -> None:
    """OCS 12.8e "During their Breakout Segment": the owner's Supply Phase or the Movement
    Segment of its Movement Phase (reading 20), never a later phase or the enemy's."""
    side = state.unit(action.unit.strip()).side
    own = state.phase_side == side and state.phase in BREAKOUT_PHASES
    if own and (state.phase == "supply" or state.segment == "movement"):
        return
    raise IllegalAction(
        f"{side}'s units break out in {side}'s Breakout Segment — its Supply Phase, once the "
        f"trace check failed, or its Movement Phase before any barrage; it is "
        f"{_phase_and_segment(state)}.",
        rule="OCS 12.8e",
    )


def _check_attrition(state: OcsState, action: Attrition) -> None:
    """Once per stack per Supply Phase, after the trace checks of the whole stack (12.8a)."""
    for unit in attrition_stack(state, action):
        if unit.out_of_supply and unit.name in state.attrition_checked:
            raise IllegalAction(
                f"{unit.name} has already checked for Attrition this Supply Phase"
                + ("" if unit.hex is None else f", with the stack in {unit.hex}")
                + " (Roll once per stack per Supply Phase).",
                rule="OCS 12.8",
            )
        if unit.is_combat_unit and unit.name not in state.checked:
            raise IllegalAction(
                f"{unit.name} has had no trace check this Supply Phase; record it first "
                + (
                    "(a unit that traces again loses its Out of Supply marker)."
                    if unit.out_of_supply
                    else f"(it stands in the stack's hex {unit.hex}: if it is Out of Supply it "
                    "rolls with the stack, once)."
                ),
                rule="OCS 12.8a",
            )


def _check_recovery_before_eating(state: OcsState, action: Trace) -> None:
    """Recovery of internals takes priority over eating off the map (OCS 12.10e A-B).

    A marked unit that eats from a dump, or stands on it, evidently reaches it: no one can
    state otherwise. Other marked units reach it only by a path the player knows: the dump
    recovers first unless the player states that none of them can draw from it.
    """
    side = state.unit(action.units[0].strip()).side if action.units else ""
    eaters = {state.unit(n.strip()).name for n in action.units}
    marked = [
        u for u in state.units if u.side == side and u.location == "map" and u.internals != "NONE"
    ]
    for hex in dump_hexes(action.dump):
        if not state.supply_held(hex, side, organic=False):
            continue  # 12.10e B: SP on Organic Trucks owe no recovery
        reaching = [u for u in marked if u.name in eaters or u.hex == hex]
        if reaching:
            unit = reaching[0]
            how = "eats from it" if unit.name in eaters else "stands on it"
            raise IllegalAction(
                f"Recovery of internals comes first: {unit.name} is marked "
                f"{unit.internals.capitalize()} and "
                f"reaches the dump in {hex} ({how}), so it recovers from it before anyone eats "
                f'from it (/ocs recover side:{side} dump:{hex} units:"{unit.name}").',
                rule="OCS 12.10e A",
            )
        if marked and hex not in state.recovered_from and not action.no_recovery:
            names = [u.name for u in marked]
            raise IllegalAction(
                f"Recovery of internals comes first: {', '.join(names)} "
                f"{'is' if len(names) == 1 else 'are'} Low or Exhausted, so recover from "
                f"{hex} before eating from it (/ocs recover), or state that none of them "
                "can draw from it (no-recovery:true).",
                rule="OCS 12.10e A",
            )


def record_phase(state: OcsState, action: AnyOcsAction, after: OcsState) -> OcsState:
    """``after`` with what ``action`` did this phase noted (checks, recovery, Attrition).

    >>> s = OcsState(sides=("Axis",), phase="supply", phase_side="Axis",
    ...              units=(Unit(name="Bn", side="Axis"),))
    >>> record_phase(s, Trace(units=("Bn",), status="traced"), s).checked
    ('Bn',)
    """
    if state.phase is None:
        return after
    if isinstance(action, Trace):
        names = tuple(state.unit(n.strip()).name for n in action.units)
        checked = (*after.checked, *(n for n in names if n not in after.checked))
        sources = after.trace_sources
        if action.status == "traced" and action.hq is not None:
            known = dict(sources)
            for name in names:
                formation = state.unit(name).formation
                if formation is not None and formation not in known:
                    known[formation] = action.hq.strip()
            sources = tuple(known.items())
        return after.model_copy(update={"checked": checked, "trace_sources": sources})
    if isinstance(action, Attrition):
        names = tuple(u.name for u in attrition_stack(state, action) if u.out_of_supply)
        done = (*after.attrition_checked, *(n for n in names if n not in after.attrition_checked))
        return after.model_copy(update={"attrition_checked": done})
    if isinstance(action, Recover):
        hexes = dump_hexes(action.dump)
        recovered = (*after.recovered_from, *(h for h in hexes if h not in after.recovered_from))
        return after.model_copy(update={"recovered_from": recovered})
    return after


def resolve_phase(state: OcsState, action: SetPhase) -> Outcome[OcsState]:
    """Go to a phase (or a segment of it): what ends with the old phase ends (OCS 12.5c-d).

    :raises IllegalAction: leaving a Supply Phase before every trace check and Attrition check
        is done (12.6d, 12.8a).

    >>> s = OcsState(sides=("Axis", "Soviet"))
    >>> resolve_phase(s, SetPhase(side="Axis", phase="movement")).state.phase_side
    'Axis'
    """
    state.check_side(action.side)
    turn = state.turn if action.turn is None else action.turn
    same_phase = (
        state.phase == action.phase and state.phase_side == action.side and turn == state.turn
    )
    if same_phase and state.segment == action.segment:
        raise InvalidInput(f"It is already {phase_name(state)}.")
    if same_phase:
        return OcsOutcome(
            state=state.model_copy(update={"segment": action.segment}),
            steps=(
                Step(
                    rule="OCS 12.11a",
                    text=f"{phase_name(state)}: the {action.segment} segment",
                ),
            ),
            facts=(("Segment", action.segment),),
        )
    unfinished = unfinished_supply_phase(state)
    if unfinished is not None:
        raise unfinished
    steps: list[Step] = []
    new_state = state
    ended = end_fuel(new_state, side=None, markers_of=None)
    new_state, fuel_steps = ended
    steps.extend(fuel_steps)
    markers = tuple(
        m.model_copy(update={"throws_from": None, "started_in": None})
        for m in new_state.fuel_markers
    )
    update: dict[str, object] = {
        "turn": turn,
        "phase": action.phase,
        "phase_side": action.side,
        "segment": action.segment,
        "blown_this_phase": (),
        "unloaded": (),
        "fuel_markers": markers,
    }
    if action.phase == "supply":
        update.update(checked=(), attrition_checked=(), recovered_from=(), trace_sources=())
    new_state = new_state.model_copy(update=update)
    if action.phase == "cleanup":
        new_state, cleanup_steps = end_fuel(new_state, side=action.side, markers_of=action.side)
        steps.extend(cleanup_steps)
    name = phase_name(new_state)
    steps.insert(0, Step(rule="OCS 12.0", text=f"turn {turn}: {name} begins"))
    if action.phase == "supply":
        steps.append(
            Step(
                rule="OCS 12.10e",
                text="recovery of internals first, then each combat unit's trace check (trace, "
                "eat or Out of Supply), then Attrition for every Out of Supply stack (12.6, 12.8a)",
            )
        )
    return OcsOutcome(
        state=new_state,
        steps=tuple(steps),
        facts=(("Phase", f"{action.side} {PHASE_NAMES[action.phase]}, turn {turn}"),),
    )


__all__ = [
    "BLOWING_PHASES",
    "BREAKOUT_PHASES",
    "PHASE_NAMES",
    "check_phase",
    "in_supply_phase",
    "phase_name",
    "record_phase",
    "resolve_phase",
    "unfinished_supply_phase",
]
