"""The Player Turn: its phases in order, the ATTACKER, and who may fire in which phase (A3).

The turn is rules state: the phase, the ATTACKER (``AslState.phase_side``) and what each unit
and weapon did this phase or Player Turn live in :class:`~rules_core.asl.state.AslState`, so
whether a declaration is legal depends only on the state and the declaration.

>>> from rules_core.asl.examples import build_state
>>> st = build_state([])
>>> following(st.model_copy(update={"phase": "ccph", "phase_side": "Axis"}))
('rph', 'Allied')
"""

from __future__ import annotations

from typing import TypeVar

from rules_core.asl.state import (
    FIRE_PHASES,
    MARKER_NAMES,
    PHASE_NAMES,
    PHASE_ORDER,
    AslState,
    FireMarker,
    Phase,
    Unit,
    Weapon,
)
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.outcome import Step

ATTACKER_PHASES = frozenset({"pfph", "afph"})
"""A3: the ATTACKER fires in the Prep Fire and Advancing Fire Phases."""
DEFENDER_PHASES = frozenset({"mph", "dfph"})
"""A3: the DEFENDER fires in the MPh (Defensive First Fire, FPF) and the DFPh (Final Fire)."""

MARKERS_EXPIRING: dict[str, frozenset[FireMarker]] = {
    "rph": frozenset({"prep", "first", "final", "intensive"}),
    "afph": frozenset({"first", "final"}),
    "rtph": frozenset({"prep", "intensive"}),
}
"""A3: fire markers removed on entering a phase: the DEFENDER's at the end of the DFPh, the
ATTACKER's at the end of the AFPh, any left at the end of the Player Turn."""


def other_side(state: AslState, side: str) -> str:
    """The side that is not ``side`` (ASL has two sides: ATTACKER and DEFENDER, A3).

    >>> from rules_core.asl.examples import build_state
    >>> other_side(build_state([]), "axis")
    'Allied'
    """
    others = [s.name for s in state.sides if s.name.lower() != side.lower()]
    if len(others) != 1:
        raise InvalidInput("Name the ATTACKER with side: (this game does not have two sides).")
    return others[0]


def following(state: AslState) -> tuple[Phase, str]:
    """The phase after the current one and its ATTACKER (after the CCPh: the other side's RPh).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> following(fb16_fire_group())
    ('mph', 'Axis')
    """
    assert state.phase is not None and state.phase_side is not None
    index = PHASE_ORDER.index(state.phase)
    if index + 1 < len(PHASE_ORDER):
        return PHASE_ORDER[index + 1], state.phase_side
    return PHASE_ORDER[0], other_side(state, state.phase_side)


def phase_label(phase: str, attacker: str | None) -> str:
    """``Movement Phase of Axis`` (A3).

    >>> phase_label("rtph", "Allied")
    'Rout Phase of Allied'
    """
    return PHASE_NAMES[phase] + (f" of {attacker}" if attacker else "")


def enter_phase(
    state: AslState, phase: Phase, attacker: str, *, new_turn: bool
) -> tuple[AslState, list[Step]]:
    """The state on entering ``phase``: this phase's use is forgotten, expiring markers go (A3).

    Leaving the MPh ends Fire Lanes and MPh shot counts (A9.2, A9.223); a fixed Covered Arc ends
    with its phase (A9.21, until the DFPh's end if its MG's operator is pinned); a new Player
    Turn also forgets A9.11 forfeits and A9.72 repair attempts and removes Pin counters (A7.8).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st, steps = enter_phase(fb16_fire_group(), "mph", "Axis", new_turn=False)
    >>> st.phase, [s.render() for s in steps]
    ('mph', [])
    """
    steps: list[Step] = []
    expiring = MARKERS_EXPIRING.get(phase, frozenset())
    marked = [w.name for w in state.weapons if w.fire_marker in expiring]
    marked += [u.name for u in state.units if u.fire_marker in expiring]
    weapons = []
    for w in state.weapons:
        update: dict[str, object] = {"spent": False, "lane_laid": False}
        if w.fire_marker in expiring:
            update["fire_marker"] = "none"
        if "prep" in expiring:
            update["prep_fired"] = False
        if w.ca_fixed and not _keeps_fixed_ca(state, w, phase):
            update["ca_fixed"] = False
        if new_turn:
            update["repair_tried"] = False
        weapons.append(_updated(w, update))
    units = []
    unpinned = []
    for u in state.units:
        change: dict[str, object] = {
            "fired": False,
            "mgs": (),
            "directed": False,
            "sw_used": False,
        }
        if u.fire_marker in expiring:
            change["fire_marker"] = "none"
        if new_turn:
            change.update(forfeit=False, repairs=0)
            if u.pinned:
                change["pinned"] = False
                unpinned.append(u.name)
        units.append(_updated(u, change))
    if marked:
        steps.append(Step(rule="A3", text=f"fire markers removed from {', '.join(marked)}"))
    if unpinned:
        steps.append(Step(rule="A7.8", text=f"Pin counters removed from {', '.join(unpinned)}"))
    update_state: dict[str, object] = {
        "weapons": _same_or_new(state.weapons, weapons),
        "units": _same_or_new(state.units, units),
        "phase": phase,
        "phase_side": attacker,
    }
    if state.phase == "mph" or phase == "mph":
        if state.fire_lanes:
            steps.append(Step(rule="A9.223", text="Fire Lanes end with the MPh"))
        update_state.update(shots=(), fire_lanes=())
    if new_turn:
        update_state["turn"] = state.turn + 1
    return replaced(state, update_state), steps


_Model = TypeVar("_Model", Unit, Weapon)


def _updated(model: _Model, update: dict[str, object]) -> _Model:
    """``model`` with ``update`` applied: itself when it already holds every value, of the same
    type (a frozen model: nothing to copy; the dump is the same), else a copy.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> a = fb16_fire_group().units[0]
    >>> _updated(a, {"fired": False}) is a, _updated(a, {"fired": True}).fired
    (True, True)
    """
    for key, value in update.items():
        current = getattr(model, key)
        if current != value or type(current) is not type(value):
            return replaced(model, update)
    return model


def _same_or_new(old: tuple[_Model, ...], new: list[_Model]) -> tuple[_Model, ...]:
    """``old`` itself when ``new`` holds the very same objects (its look-up index is kept:
    :meth:`AslState.unit`), else ``new`` as a tuple."""
    for before, after in zip(old, new, strict=True):
        if before is not after:
            return tuple(new)
    return old


def _keeps_fixed_ca(state: AslState, weapon: Weapon, phase: Phase) -> bool:
    """A9.21 EXC: a MMG/HMG with a fixed CA whose operator was pinned in the PFPh/MPh keeps
    that CA until the end of the DFPh; any other fixed CA ends with the phase."""
    operator = possessor(state, weapon)
    return operator is not None and operator.pinned and phase in ("mph", "dfph")


def fire_phase(state: AslState, requested: Phase | None, correction: bool, what: str) -> Phase:
    """The phase a fire declaration is resolved in: the game's, or a referee's correction (A3).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> fire_phase(fb16_fire_group(), None, False, "fire")
    'pfph'
    >>> fire_phase(fb16_fire_group(), "afph", False, "fire")
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: The game is in the Prep Fire Phase; only a referee may \
declare fire in another phase, with correction:true. (A3)
    """
    if requested is not None and requested != state.phase and not correction:
        if state.phase is None:
            raise IllegalAction(
                "No Player Turn has begun; start one with /asl phase (or a referee may give "
                "phase with correction:true).",
                rule="A3",
            )
        raise IllegalAction(
            f"The game is in the {PHASE_NAMES[state.phase]}; only a referee may declare "
            f"{what} in another phase, with correction:true.",
            rule="A3",
        )
    phase = requested or state.phase
    if phase is None:
        raise IllegalAction("No Player Turn has begun; start one with /asl phase.", rule="A3")
    if phase not in FIRE_PHASES:
        raise IllegalAction(f"Nothing fires in the {PHASE_NAMES[phase]}.", rule="A3")
    return phase


def check_side_fires(state: AslState, phase: str, side: str) -> None:
    """A3: the ATTACKER fires in the PFPh/AFPh, the DEFENDER in the MPh/DFPh.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> check_side_fires(fb16_fire_group(), "mph", "Axis")
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Only the DEFENDER (Allied) fires in the Movement Phase of \
Axis. (A3)
    """
    attacker = state.phase_side
    if attacker is None:
        return
    phasing = attacker.lower() == side.lower()
    label = phase_label(phase, attacker)
    if phase in ATTACKER_PHASES and not phasing:
        raise IllegalAction(f"Only the ATTACKER ({attacker}) fires in the {label}.", rule="A3")
    if phase in DEFENDER_PHASES and phasing:
        defender = other_side(state, attacker)
        raise IllegalAction(f"Only the DEFENDER ({defender}) fires in the {label}.", rule="A3")


def adjacent(range_: int | None) -> bool:
    """Range 0 (same Location) or 1: ADJACENT for A8.31 FPF, A8.4 Final Fire and A7.353.

    >>> adjacent(1), adjacent(2), adjacent(None)
    (True, False, False)
    """
    return range_ is not None and range_ <= 1


def need_range(range_: int | None, why: str) -> None:
    """Ask for the range when a rule depends on adjacency (one sentence, no die).

    >>> need_range(None, "FPF")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Give range (in hexes) — FPF depends on it.
    """
    if range_ is None:
        raise InvalidInput(f"Give range (in hexes) — {why} depends on it.")


def possessor(state: AslState, weapon: Weapon) -> Unit | None:
    """The unit possessing ``weapon`` (A9.1: a SW is fired by the Personnel possessing it).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> possessor(st, st.weapon("HMG")).name
    'A'
    """
    return state.unit(weapon.possessor) if weapon.possessor else None


def check_possessor_fires(state: AslState, weapon: Weapon) -> Unit | None:
    """A SW fires only in the hands of a Good Order possessor (A9.1, A.7).

    >>> from rules_core.asl.state import Weapon
    >>> from rules_core.asl.examples import build_state
    >>> check_possessor_fires(build_state([]), Weapon(name="LMG", side="Axis", kind="sw_mg"))
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: LMG has no possessor; only the unit possessing a SW fires \
it (record it with /asl weapon add … owner: update:true). (A9.1)
    """
    owner = possessor(state, weapon)
    if owner is None:
        if weapon.is_sw:
            raise IllegalAction(
                f"{weapon.name} has no possessor; only the unit possessing a SW fires it "
                "(record it with /asl weapon add … owner: update:true).",
                rule="A9.1",
            )
        return None
    if not owner.good_order:
        raise IllegalAction(f"{owner.name} is broken and cannot fire {weapon.name}.", rule="A.7")
    return owner


def check_not_spent(weapon: Weapon, phase: str) -> None:
    """A9.2: after losing Multiple ROF (or firing without it) no further fire that phase.

    In the MPh the MG's marker says what it may still do: marked First Fire, Subsequent First
    Fire (A8.3, Sustained Fire by A9.3); marked Final Fire, only FPF (A8.31).

    >>> from rules_core.asl.state import Weapon
    >>> check_not_spent(Weapon(name="LMG", side="Axis", kind="sw_mg", spent=True), "afph")
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: LMG has already fired without keeping Multiple ROF in the \
Advancing Fire Phase and may not fire again in it. (A9.2)
    """
    if weapon.spent and phase != "mph":
        raise IllegalAction(
            f"{weapon.name} has already fired without keeping Multiple ROF in the "
            f"{PHASE_NAMES[phase]} and may not fire again in it.",
            rule="A9.2",
        )


def marker_text(marker: FireMarker) -> str:
    """``marked First Fire`` (A9.2).

    >>> marker_text("prep")
    'marked Prep Fire'
    """
    return f"marked {MARKER_NAMES[marker]}"


__all__ = [
    "ATTACKER_PHASES",
    "DEFENDER_PHASES",
    "MARKERS_EXPIRING",
    "adjacent",
    "check_not_spent",
    "check_possessor_fires",
    "check_side_fires",
    "enter_phase",
    "fire_phase",
    "following",
    "marker_text",
    "need_range",
    "other_side",
    "phase_label",
    "possessor",
]
