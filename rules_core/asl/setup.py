"""Actions that roll nothing: the level, units, weapons, the weapon list, the phase.

They resolve like any other action so the game's log holds every change.
"""

from __future__ import annotations

from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    ListWeapons,
    RemoveWeapon,
    SetLevel,
    SetPhase,
    SetSan,
    SetUnit,
)
from rules_core.asl.fb16 import unit_level, weapon_level
from rules_core.asl.lanes import standing_lanes
from rules_core.asl.state import (
    FB_IMMUNE_KINDS,
    MARKER_NAMES,
    SW_KINDS,
    AslOutcome,
    AslState,
    Phase,
    Side,
    Unit,
    Weapon,
)
from rules_core.asl.turn import enter_phase, following, phase_label
from rules_core.asl.weapons import DISMANTLED_ONLY, dismantlable
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.outcome import Outcome, Step


def _side(state: AslState, name: str) -> str:
    return _found_side(state, name).name


def _found_side(state: AslState, name: str) -> Side:
    side = state.side(name)
    if side is None:
        names = ", ".join(s.name for s in state.sides)
        raise InvalidInput(f"There is no side called {name!r}; the sides are {names}.")
    return side


def _name_free(
    state: AslState, name: str, *, update: bool, kind: str
) -> tuple[Unit | None, Weapon | None]:
    """Refuses a name taken by the other kind of thing, or (not) taken by this kind against
    ``update``; the unit and the weapon of that name (their look-ups are not repeated)."""
    if not name.strip():
        raise InvalidInput("A name may not be empty.")
    unit, weapon = state.unit(name), state.weapon(name)
    existing = unit if kind == "unit" else weapon
    other = weapon if kind == "unit" else unit
    if other is not None:
        raise InvalidInput(f"{name!r} already names a {'weapon' if kind == 'unit' else 'unit'}.")
    if existing is not None and not update:
        raise InvalidInput(f"{name!r} already exists; use update:true to change it.")
    if existing is None and update:
        raise InvalidInput(f"There is no {kind} called {name!r} to update.")
    return unit, weapon


def set_level(state: AslState, action: SetLevel) -> Outcome[AslState]:
    """FB16.1: set a side's Ammunition Shortage level (Axis sides only).

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Allied", nationality="Russian", axis=False),))
    >>> set_level(st, SetLevel(side="Allied", level=3))
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Ammunition Shortage applies only to Axis sides. (FB16.1)
    """
    name = _side(state, action.side)
    side = state.side(name)
    assert side is not None
    if action.level > 0 and not side.axis:
        raise IllegalAction("Ammunition Shortage applies only to Axis sides.", rule="FB16.1")
    sides = tuple(replaced(s, {"level": action.level}) if s is side else s for s in state.sides)
    text = (
        f"{name}: Ammunition Shortage level {action.level}"
        if action.level
        else f"{name}: no Ammunition Shortage"
    )
    new = replaced(state, {"sides": sides})
    steps = [Step(rule="FB16.1", text=text)]
    steps += [_replacement_warning(u) for u in new.units if _lacks_replacement(new, u)]
    return AslOutcome(state=new, steps=tuple(steps))


def set_san(state: AslState, action: SetSan) -> Outcome[AslState]:
    """A14.1: set a side's Sniper Activation Number; in play it is never increased (only a
    referee's correction raises it).

    >>> from rules_core.asl.examples import build_state
    >>> set_san(build_state([]), SetSan(side="Allied", san=3)).explanation()
    ['A14.1: Allied: SAN 3']
    """
    name = _side(state, action.side)
    side = state.side(name)
    assert side is not None
    if state.phase is not None and action.san > side.san and not action.correction:
        raise IllegalAction(
            f"A SAN is never increased in play ({name}'s is {side.san}); a referee may correct "
            "it with correction:true.",
            rule="A14.1",
        )
    sides = tuple(replaced(s, {"san": action.san}) if s is side else s for s in state.sides)
    text = f"{name}: SAN {action.san}"
    if action.san < 2:
        text += " — no Sniper (a SAN below 2)"
    steps = [Step(rule="A14.1", text=text)]
    if action.correction:
        steps.append(Step(rule="A14.1", text="a referee's correction in play"))
    return AslOutcome(state=replaced(state, {"sides": sides}), steps=tuple(steps))


def add_unit(state: AslState, action: AddUnit) -> Outcome[AslState]:
    """Add or update a unit; its replacement chain is unit data (A19.13).

    >>> from rules_core.asl.examples import build_state
    >>> out = add_unit(build_state([]), AddUnit(name="E", side="Axis", kind="squad",
    ...                nationality="Hungarian", replaced_by=("4-4-7",)))
    >>> out.explanation()
    ['A19.13: E: Hungarian squad, replaced by 4-4-7']
    """
    side = _found_side(state, action.side)
    side_name = side.name
    existing, _ = _name_free(state, action.name, update=action.update, kind="unit")
    _unit_options(action)
    kept: dict[str, object] = {}
    if existing is not None:  # its use this phase / Player Turn stays (A8, A9.11, A9.12, A9.72)
        kept = {name: getattr(existing, name) for name in UNIT_USE}
        held = [w.name for w in state.weapons if w.possessor == existing.name]
        if existing.side != side_name and held:  # a weapon is its possessor's side's (A9.7)
            one = len(held) == 1
            raise InvalidInput(
                f"{existing.name} holds {', '.join(held)}, which stay{'s' if one else ''} "
                f"{existing.side}; give {'it' if one else 'them'} to another {existing.side} unit "
                f"(weapon add update:true owner:…) before moving {existing.name} to {side_name}."
            )
    unit = Unit(
        **kept,
        name=action.name.strip(),
        side=side_name,
        kind=action.kind,
        nationality=action.nationality or side.nationality,
        quality=action.quality,
        replaced_by=tuple(q.strip() for q in action.replaced_by if q.strip()),
        elite=action.elite,
        smoke=action.smoke,
        broken=_flag(action.broken, existing, "broken"),
        pinned=_flag(action.pinned, existing, "pinned"),
        berserk=_flag(action.berserk, existing, "berserk"),
        unarmed=action.unarmed,
        cx=action.cx,
    )
    if existing is not None:
        new = replaced(state, {"units": tuple(unit if u is existing else u for u in state.units)})
    else:
        new = replaced(state, {"units": (*state.units, unit)})
    chain = f", replaced by {' → '.join(unit.replaced_by)}" if unit.replaced_by else ""
    described = " ".join(part for part in (unit.nationality, unit.kind, unit.quality) if part)
    text = f"{unit.name}: {described}{chain}"
    steps = [Step(rule="A19.13" if chain else "A1", text=text)]
    new, ended = standing_lanes(new)  # A9.223: its manning Infantry broken or pinned
    steps += [_lane_ends(mg) for mg in ended]
    if _lacks_replacement(new, unit):
        steps.append(_replacement_warning(unit))
    return AslOutcome(state=new, steps=tuple(steps))


def _unit_options(action: AddUnit) -> None:
    """Options that cannot apply to this unit are refused, never dropped (A19.13, A24.1)."""
    if action.replaced_by and action.kind in ("leader", "hero"):
        raise IllegalAction(
            "A replacement chain is a MMC's: Unit Replacement replaces squads, half-squads and "
            "crews, not a leader or hero.",
            rule="A19.13",
        )
    if action.smoke and action.kind not in ("squad", "half_squad"):
        raise IllegalAction("Only a squad or half-squad has a SMOKE exponent.", rule="A24.1")
    if action.broken and action.berserk:
        raise InvalidInput("A unit is not broken and berserk at once: give one of them.")


def _lane_ends(mg: str) -> Step:
    return Step(rule="A9.223", text=f"the Fire Lane of {mg} ends")


UNIT_USE: tuple[str, ...] = (
    "fire_marker",
    "fired",
    "forfeit",
    "mgs",
    "directed",
    "sw_used",
    "repairs",
)
"""What a unit did this phase / Player Turn: kept when it is updated."""


def _flag(given: bool | None, existing: Unit | None, name: str) -> bool:
    """A status option: as given, else as the unit is, else not set."""
    if given is not None:
        return given
    return bool(getattr(existing, name)) if existing is not None else False


def _lacks_replacement(state: AslState, unit: Unit) -> bool:
    """An Axis squad or half-squad under FB16 with no A19.13 replacement recorded."""
    return (
        unit.kind in ("squad", "half_squad")
        and not unit.replaced_by
        and unit_level(state, unit) > 0
    )


def _replacement_warning(unit: Unit) -> Step:
    return Step(
        rule="A19.13",
        text=f"no replacement recorded for {unit.name}: FB16.2 Unit Replacement would break it; "
        f'if a lower-quality counter exists, record it with /asl unit add name:"{unit.name}" '
        "… replaced-by:… update:true",
    )


def _special_ammo(entries: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    out = []
    for entry in entries:
        kind, sep, number = entry.rpartition(":")
        if not sep or not kind.strip() or not number.strip().isdigit():
            raise InvalidInput(f"Special Ammo {entry!r} should look like 'APCR:5'.")
        out.append((kind.strip(), int(number)))
    return tuple(out)


def add_weapon(state: AslState, action: AddWeapon) -> Outcome[AslState]:
    """Add or update a weapon with its printed numbers (A9.7).

    >>> from rules_core.asl.examples import build_state
    >>> add_weapon(build_state([]), AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3,
    ...            b=11)).explanation()
    ['A9.7: HMG (Axis sw_mg): B11, ROF 3; ok']
    """
    side_name = _side(state, action.side)
    _, existing = _name_free(state, action.name, update=action.update, kind="weapon")
    owner = None
    if action.owner is not None:
        unit = state.unit(action.owner)
        if unit is None:
            raise InvalidInput(f"There is no unit called {action.owner!r} in this game.")
        if unit.side != side_name:
            article = "an" if side_name[:1].lower() in "aeiou" else "a"
            raise InvalidInput(f"{unit.name} is not {article} {side_name} unit.")
        owner = unit.name
    captured = None
    if action.captured_from is not None:
        captured = _side(state, action.captured_from)
        if captured == side_name:
            raise InvalidInput("A weapon is not captured from its own side.")
    if action.low_ammo and action.kind != "gun":
        raise InvalidInput("Only Guns carry an FB16.42 Low Ammo marker.")
    _weapon_options(state, action, side_name, captured, existing)
    in_play = _in_play_weapon(state, existing, action)
    if action.b is not None and action.x is not None and action.x < action.b:
        raise InvalidInput("A printed X# below the printed B# is not a counter.")
    weapon = Weapon(
        name=action.name.strip(),
        side=side_name,
        kind=action.kind,
        printed_b=action.b,
        printed_x=action.x,
        rof=action.rof,
        r_number=action.repair,
        repairable=action.repairable,
        removal_number=action.removal,
        possessor=owner,
        captured_from=captured,
        main_armament=action.main_armament,
        fb_immune=action.fb_immune,
        mg=action.mg,
        mortar=action.mortar,
        normal_range=action.normal_range,
        cmg=action.cmg,
        special_ammo=_special_ammo(action.special_ammo),
        **in_play,
    )
    if existing is not None:
        weapons = tuple(weapon if w is existing else w for w in state.weapons)
    else:
        weapons = (*state.weapons, weapon)
    new = replaced(state, {"weapons": weapons})
    steps = [Step(rule="A9.7", text=describe(new, weapon))]
    new, ended = standing_lanes(new)  # A9.223: a MG corrected to malfunctioned
    steps += [_lane_ends(mg) for mg in ended]
    return AslOutcome(state=new, steps=tuple(steps))


MG_KINDS = ("sw_mg", "veh_mg")
"""The kinds a MG's size, Normal Range and Multiple-ROF markers belong to (A9.1, A9.8)."""


def _weapon_options(
    state: AslState,
    action: AddWeapon,
    side: str,
    captured: str | None,
    existing: Weapon | None,
) -> None:
    """Options that cannot apply to this kind of weapon are refused, never dropped (A9.1, A9.4,
    A9.8, C2.2, C5.6, C8.9, D1.3)."""
    wrong = [
        (action.removal is not None and action.kind != "gun", "removal", "a Gun's", "C2.2"),
        (
            action.main_armament and action.kind != "veh_mg",
            "main-armament",
            "a vehicle MG's",
            "A9.3",
        ),
        (action.mg is not None and action.kind not in MG_KINDS, "mg", "a MG's size", "A9.8"),
        (
            action.mortar and action.kind not in ("sw_other", "gun"),
            "mortar",
            "a light mortar's (sw_other) or a 76-82mm mortar's (gun)",
            "A9.8",
        ),
        (
            action.normal_range is not None and action.kind not in MG_KINDS,
            "normal-range",
            "a MG's",
            "A9.1",
        ),
        (action.cmg and action.kind not in ("veh_mg", "gun"), "cmg", "a vehicle's CMG/IFE", "A9.4"),
        (
            bool(action.special_ammo) and action.kind not in ("gun", "sw_other", "psk"),
            "special-ammo",
            "a Gun's or SW's that fires Special Ammunition",
            "C8.9",
        ),
        (
            action.marker == "intensive" and action.kind != "gun",
            "marker:intensive",
            "a Gun's",
            "C5.6",
        ),
        (
            action.rof is not None and action.kind in FB_IMMUNE_KINDS,
            "rof",
            "a MG's, Gun's or mortar's Multiple ROF",
            "A9.2",
        ),
        (
            action.status == "disabled" and action.kind in SW_KINDS,
            "status:disabled",
            "a Gun's or vehicle weapon's (a SW is eliminated)",
            "D3.7",
        ),
        (
            action.status == "eliminated" and action.kind in ("gun", "veh_mg"),
            "status:eliminated",
            "a SW's (a Gun or vehicle weapon is Disabled)",
            "D3.7",
        ),
        (
            action.correction and existing is None,
            "correction",
            "a referee's change to a weapon in play (update:true)",
            "A9.7",
        ),
    ]
    for bad, option, whose, rule in wrong:
        if bad:
            raise IllegalAction(
                f"{option} is {whose}; {action.name.strip()} is a {action.kind}.", rule=rule
            )
    if action.repair is not None and not action.repairable:
        raise IllegalAction(
            f"{action.name.strip()} has no repair number (repairable:false), so "
            f"repair:{action.repair} cannot apply; give one or the other.",
            rule="A9.72",
        )
    if action.dm:
        _check_dm(state, action, side, captured)


def _check_dm(state: AslState, action: AddWeapon, side: str, captured: str | None) -> None:
    """A9.8: only a light or 76-82mm mortar (``mortar:true``), a non-Russian HMG/MMG or the
    Russian .50 cal is dismantled."""
    probe = Weapon(
        name=action.name,
        side=side,
        kind=action.kind,
        mg=action.mg,
        mortar=action.mortar,
        captured_from=captured,
    )
    if not dismantlable(state, probe):
        raise IllegalAction(
            f"{action.name.strip()} cannot be dismantled: {DISMANTLED_ONLY}.", rule="A9.8"
        )


IN_PLAY: dict[str, str] = {
    "status": "status",
    "low_ammo": "low_ammo",
    "fire_marker": "marker",
    "dm": "dm",
}
"""A weapon's state in play (A9.2 markers, A9.7 status, FB16.42 Low Ammo, A9.8 dismantled) and the
options of ``/asl weapon add`` that set it."""
USE: tuple[str, ...] = ("spent", "lane_laid", "repair_tried", "depleted")
"""What a weapon did this phase / Player Turn: kept when it is updated."""
_NEW_WEAPON = Weapon(name="_", side="_", kind="sw_mg")
"""A weapon as added, for the defaults of its in-play fields (built once: frozen)."""


def _in_play_weapon(
    state: AslState, existing: Weapon | None, action: AddWeapon
) -> dict[str, object]:
    """The in-play fields of an added or updated weapon.

    A new weapon takes the options given (its state when the scenario sets it up). Once a Player
    Turn has begun, updating a weapon keeps what the rules made of it — its status, markers, Low
    Ammo, dismantled state and its use this phase / Player Turn — unless a referee corrects them
    (``correction:true``): a malfunctioned MG is repaired by a Repair dr (A9.72), not by being
    added again.
    """
    fields: dict[str, object] = {}
    for name, option in IN_PLAY.items():
        given = getattr(action, option)
        base = getattr(existing if existing is not None else _NEW_WEAPON, name)
        fields[name] = base if given is None else given
        if (
            existing is not None
            and state.phase is not None
            and given is not None
            and given != base
            and not action.correction
        ):
            raise IllegalAction(
                f"{existing.name} is in play: its status, markers, Low Ammo and dismantled "
                "state change by the rules (a referee may correct them with correction:true).",
                rule="A9.7",
            )
    if existing is not None:
        fields.update({name: getattr(existing, name) for name in USE})
    return fields


def describe(state: AslState, weapon: Weapon) -> str:
    """One line about a weapon: numbers (A9.7), status, markers (A9.2), FB level (FB16.1).

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Axis", nationality="German", axis=True, level=2),))
    >>> describe(st, Weapon(name="LMG", side="Axis", kind="sw_mg", rof=1, r_number=2))
    'LMG (Axis sw_mg): B12, ROF 1, R2; ok; FB level 2'
    """
    numbers = []
    if weapon.printed_b is not None or weapon.printed_x is None:
        numbers.append(f"B{weapon.printed_b or 12}")
    if weapon.printed_x is not None:
        numbers.append(f"X{weapon.printed_x}")
    if weapon.rof is not None:
        numbers.append(f"ROF {weapon.rof}")
    if weapon.r_number is not None:
        numbers.append(f"R{weapon.r_number}")
    parts = [", ".join(numbers), weapon.status]
    if weapon.fire_marker != "none":
        parts.append(MARKER_NAMES[weapon.fire_marker])
    if weapon.low_ammo:
        parts.append("Low Ammo")
    if weapon.dm:
        parts.append("dismantled")
    if weapon.prep_fired:
        parts.append("fired this PFPh (keeps Multiple ROF; no fire in the AFPh)")
    if weapon.ca_fixed:
        parts.append("Covered Arc fixed this phase")
    if weapon.depleted:
        parts.append("depleted " + ", ".join(weapon.depleted))
    if weapon.possessor:
        parts.append(f"held by {weapon.possessor}")
    if weapon.captured_from:
        parts.append(f"captured from {weapon.captured_from}")
    level = weapon_level(state, weapon)
    if level:
        parts.append(f"FB level {level}")
    kind = f"{weapon.kind} mortar" if weapon.mortar else weapon.kind
    return f"{weapon.name} ({weapon.side} {kind}): " + "; ".join(parts)


def list_weapons(state: AslState, action: ListWeapons) -> Outcome[AslState]:
    """The weapons with their status and markers (read only; A9.7).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> list_weapons(fb16_fire_group(), ListWeapons()).explanation()[1]
    'A9.7: LMG (Axis sw_mg): B12, ROF 1, R2; ok; held by B; FB level 4'
    """
    steps = tuple(Step(rule="A9.7", text=describe(state, w)) for w in state.weapons)
    return AslOutcome(state=state, steps=steps)


def remove_weapon(state: AslState, action: RemoveWeapon) -> Outcome[AslState]:
    """Remove a weapon (and its Fire Lane and MPh shot counts; A9.7).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> [w.name for w in remove_weapon(fb16_fire_group(), RemoveWeapon(name="HMG")).state.weapons]
    ['LMG']
    """
    weapon = state.weapon(action.name)
    if weapon is None:
        raise InvalidInput(f"There is no weapon called {action.name!r} in this game.")
    new = replaced(
        state,
        {
            "weapons": tuple(w for w in state.weapons if w is not weapon),
            "fire_lanes": tuple(f for f in state.fire_lanes if f.weapon != weapon.name),
            "shots": tuple(s for s in state.shots if s.weapon != weapon.name),
        },
    )
    return AslOutcome(state=new, steps=(Step(rule="A9.7", text=f"{weapon.name} removed"),))


def set_phase(state: AslState, action: SetPhase) -> Outcome[AslState]:
    """Go on to the next phase of the Player Turn, or begin the first one (A3).

    The first ``/asl phase`` names the ATTACKER (``side``) and may name the phase the scenario
    begins in; afterwards the phases follow RPh → PFPh → MPh → DFPh → AFPh → RtPh → CCPh, and
    after the CCPh the other side's Player Turn begins. Any other phase or side is an
    out-of-sequence correction, which only a referee declares (``correction:true``).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> out = set_phase(fb16_fire_group(), SetPhase())
    >>> out.state.phase, out.explanation()
    ('mph', ['A3: Movement Phase of Axis'])
    >>> set_phase(fb16_fire_group(), SetPhase(phase="dfph"))
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: The next phase is the Movement Phase of Axis; ... (A3)
    """
    if state.phase is None or state.phase_side is None:
        if action.side is None:
            raise InvalidInput(
                "Name the ATTACKER of the first Player Turn with side: (e.g. side:Axis)."
            )
        attacker = _side(state, action.side)
        phase: Phase = action.phase or "rph"
        new, steps = enter_phase(state, phase, attacker, new_turn=True)
        first = Step(rule="A3", text=f"{phase_label(phase, attacker)} — Player Turn 1 begins")
        return AslOutcome(state=new, steps=(first, *steps))
    expected_phase, expected_side = following(state)
    phase = action.phase or expected_phase
    attacker = _side(state, action.side) if action.side is not None else expected_side
    if action.phase is None and action.side is not None and action.correction:
        phase = state.phase  # a correction of the ATTACKER alone keeps the phase
    in_sequence = phase == expected_phase and attacker == expected_side
    if not in_sequence and not action.correction:
        raise IllegalAction(
            f"The next phase is the {phase_label(expected_phase, expected_side)}; only a "
            "referee may jump to another, with correction:true.",
            rule="A3",
        )
    new_turn = phase == "rph" and (state.phase != "rph" or attacker != state.phase_side)
    new, steps = enter_phase(state, phase, attacker, new_turn=new_turn)
    text = phase_label(phase, attacker)
    if new_turn:
        text += f" — Player Turn {new.turn} begins"
    head = [Step(rule="A3", text=text)]
    if not in_sequence:
        head.append(
            Step(
                rule="A3",
                text="out-of-sequence correction by a referee (the sequence would have been "
                f"the {phase_label(expected_phase, expected_side)})",
            )
        )
    return AslOutcome(state=new, steps=(*head, *steps))


STATUS_WORDS: dict[str, str] = {
    "good_order": "in Good Order",
    "broken": "broken",
    "pinned": "pinned",
    "berserk": "berserk",
    "eliminated": "eliminated",
}


def set_unit(state: AslState, action: SetUnit) -> Outcome[AslState]:
    """Record a unit's status from a roll outside the bot (a Morale Check, A10; A.7 Good Order).

    A Fire Lane ends when its manning Infantry break, are pinned or eliminated (A9.223); an
    eliminated unit's weapons are left unpossessed (A9.1).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> out = set_unit(fb16_fire_group(), SetUnit(name="B", status="broken", reason="MC DR 11"))
    >>> out.state.unit("B").broken, out.explanation()
    (True, ['A10: B is broken (MC DR 11)'])
    """
    unit = state.unit(action.name)
    if unit is None:
        raise InvalidInput(f"There is no unit called {action.name!r} in this game.")
    if action.quality is not None and action.quality.strip() and action.status == "eliminated":
        raise IllegalAction(
            "quality names the counter that replaces a unit; an eliminated unit has none.",
            rule="A19.13",
        )
    why = f" ({action.reason.strip()})" if action.reason.strip() else ""
    steps = [Step(rule="A10", text=f"{unit.name} is {STATUS_WORDS[action.status]}{why}")]
    manned = {w.name for w in state.weapons if w.possessor == unit.name}
    if action.status == "eliminated":
        new = replaced(
            state,
            {
                "units": tuple(u for u in state.units if u is not unit),
                "weapons": tuple(
                    replaced(w, {"possessor": None}) if w.name in manned else w
                    for w in state.weapons
                ),
            },
        )
        if manned:
            steps.append(Step(rule="A9.1", text=f"{', '.join(sorted(manned))} left unpossessed"))
    else:
        flags = {
            "good_order": {"broken": False, "pinned": False, "berserk": False},
            "broken": {"broken": True, "berserk": False},
            "pinned": {"pinned": True},
            "berserk": {"berserk": True, "broken": False, "pinned": False},
        }[action.status]
        update: dict[str, object] = dict(flags)
        if action.quality is not None and action.quality.strip():
            update["quality"] = action.quality.strip()
            if unit.is_smc:  # A19.13 Unit Replacement is a MMC's (FB16.2, 16.11): not a leader's
                text = f"{unit.name}'s counter is now {update['quality']}"
                steps.append(Step(rule="A1", text=text))
            else:
                text = f"{unit.name} is now a {update['quality']}"
                steps.append(Step(rule="A19.13", text=text))
        new = state.with_units({unit.name: replaced(unit, update)})
    if action.status in ("broken", "pinned", "eliminated"):
        ended = [lane for lane in new.fire_lanes if lane.weapon in manned]
        if ended:
            new = replaced(new, {"fire_lanes": tuple(f for f in new.fire_lanes if f not in ended)})
            steps.append(
                Step(
                    rule="A9.223",
                    text=f"the Fire Lane of {', '.join(f.weapon for f in ended)} ends",
                )
            )
    return AslOutcome(state=new, steps=tuple(steps))


__all__ = [
    "add_unit",
    "add_weapon",
    "describe",
    "list_weapons",
    "remove_weapon",
    "set_level",
    "set_phase",
    "set_san",
    "set_unit",
]
