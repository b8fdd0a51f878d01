"""Ordnance To Hit DR: breakdown, FB Low Ammo, Intensive Fire, Special Ammunition, ROF.

A9.6/A9.7 (the To Hit DR is the breakdown roll), C5.6 Intensive Fire, C8.9 depletion, FB16.4-16.43,
FB16.52, FB16.62.
"""

from __future__ import annotations

from rules_core.asl.actions import ToHit
from rules_core.asl.breakdown import INTENSIVE_FIRE_LOWERING, Fate
from rules_core.asl.fb16 import availability_drm, fb_original_b, weapon_level
from rules_core.asl.fire import (
    AS_LMG,
    PHASE_FIRE_MARKER,
    Usage,
    WeaponPlan,
    WeaponResult,
    count_shot,
    dm_fires_as_lmg,
    fate_word,
    fired_as,
    mg_usage,
    record_usage,
    weapon_fate,
    weapon_text,
)
from rules_core.asl.fire.legality import LEADER_RANGE, check_shot_limit
from rules_core.asl.fire.plan import MIN_SAN, enemy_side
from rules_core.asl.lanes import standing_lanes
from rules_core.asl.state import (
    MARKER_NAMES,
    PHASE_NAMES,
    AslOutcome,
    AslState,
    FireMarker,
    Unit,
    Weapon,
)
from rules_core.asl.turn import (
    check_not_spent,
    check_possessor_fires,
    check_side_fires,
    fire_phase,
    marker_text,
    need_range,
)
from rules_core.dice import Dice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.outcome import Fact, Modifier, Outcome, Step


def depletion_result(original_dr: int, depletion_number: int) -> str:
    """C8.9 (reading 36): Special Ammo by the Original To Hit DR against the Depletion Number.

    ``< DN`` fired; ``= DN`` fired, then depleted; ``> DN`` not fired and depleted.

    >>> [depletion_result(dr, 3) for dr in (2, 3, 4)]
    ['fired', 'fired, then depleted', 'not fired, depleted']
    """
    if original_dr < depletion_number:
        return "fired"
    if original_dr == depletion_number:
        return "fired, then depleted"
    return "not fired, depleted"


def effective_depletion_number(printed: int, level: int) -> int:
    """FB16.62: the Depletion Number reduced by 1 at levels 2-3 and 2 at levels 4-5.

    >>> effective_depletion_number(5, 4), effective_depletion_number(5, 2)
    (3, 4)
    """
    return printed + availability_drm(level, "depletion")


def _validate(
    state: AslState, action: ToHit
) -> tuple[Weapon, str, int, tuple[str, int] | None, Usage]:
    gun = state.weapon(action.gun)
    if gun is None:
        raise InvalidInput(f"There is no weapon called {action.gun!r} in this game.")
    if gun.status != "ok":
        raise IllegalAction(f"{gun.name} is {gun.status} and cannot fire.", rule="A9.7")
    phase = fire_phase(state, action.phase, action.correction, "fire")
    check_side_fires(state, phase, gun.side)
    owner = check_possessor_fires(state, gun)
    if gun.dm and not dm_fires_as_lmg(state, gun):
        raise IllegalAction(
            f"{gun.name} is dismantled and may not fire until reassembled.", rule="A9.8"
        )
    if gun.lane_laid and phase == "mph":
        raise IllegalAction(
            f"{gun.name} laid a Fire Lane this MPh and may not fire again until the DFPh.",
            rule="A9.22",
        )
    if gun.prep_fired and phase == "afph":
        raise IllegalAction(
            f"{gun.name} fired in the Prep Fire Phase and may not fire in the Advancing Fire "
            "Phase.",
            rule="A3",
        )
    if action.ovr_prevention and phase != "mph":
        raise IllegalAction(
            "OVR Prevention is fire at an AFV overrunning in its Movement Phase: not in the "
            f"{PHASE_NAMES[phase]}.",
            rule="FB16.52",
        )
    if (action.targets or action.location is not None or action.mf is not None) and not (
        gun.is_mg and phase == "mph"
    ):
        raise IllegalAction(
            "targets, location and mf count a MG's shots at a moving unit in the MPh; this "
            "shot is not one.",
            rule="A9.2",
        )
    helper = _check_helper(state, gun, action)
    if action.to_kill:
        _check_to_kill(gun, owner, helper, action)
    if gun.is_mg:
        _validate_mg_as_ordnance(state, gun, phase, action)
    _check_range_read(gun, action)
    usage = mg_usage(state, [gun], [], phase=phase, range_=action.range, helper=helper, leader=None)
    level = weapon_level(state, gun)
    if action.intensive:
        if gun.kind != "gun":
            raise IllegalAction("Only a Gun may use Intensive Fire.", rule="C5.6")
        if gun.fire_marker == "intensive":
            raise IllegalAction(f"{gun.name} has already used Intensive Fire.", rule="C5.6")
        if level >= 4 and not action.ovr_prevention:
            raise IllegalAction(
                f"Intensive Fire is not allowed at Ammunition Shortage level {level} "
                "except as OVR Prevention.",
                rule="FB16.52",
            )
    elif gun.fire_marker != "none":
        raise IllegalAction(
            f"{gun.name} is marked {MARKER_NAMES[gun.fire_marker]}; it may fire again this "
            "phase only with Intensive Fire.",
            rule="C5.6",
        )
    if not action.intensive:
        check_not_spent(gun, phase)  # C5.6: Intensive Fire is a Gun's one further shot
    ammo: tuple[str, int] | None = None
    if action.special_ammo is not None:
        wanted = action.special_ammo.strip().lower()
        printed = {k.lower(): (k, n) for k, n in gun.special_ammo}
        if wanted not in printed:
            raise IllegalAction(f"{gun.name} has no {action.special_ammo}.", rule="C8.9")
        kind, number = printed[wanted]
        if kind in gun.depleted:
            raise IllegalAction(f"{gun.name}'s {kind} is depleted.", rule="C8.9")
        effective = effective_depletion_number(number, level)
        if effective < 2:
            raise IllegalAction(
                f"{kind} Depletion Number {number} becomes {effective} at level {level}: "
                "none is available.",
                rule="FB16.62",
            )
        ammo = (kind, effective)
    if action.correction:
        usage = Usage(
            inherent=usage.inherent,
            mgs=usage.mgs,
            forfeits=usage.forfeits,
            sw_users=usage.sw_users,
            notes=(
                (
                    "A3",
                    f"out-of-sequence correction by a referee: fire in the {PHASE_NAMES[phase]}",
                ),
                *usage.notes,
            ),
        )
    return gun, phase, level, ammo, usage


def _check_range_read(gun: Weapon, action: ToHit) -> None:
    """``range:`` is read for a MG firing as ordnance only; a Gun's range gives its To Hit
    Number on the To Hit Table, the players' (A9.6, reading 59)."""
    if not gun.is_mg and action.range is not None:
        raise IllegalAction(
            f"range is read only for a MG firing as ordnance (16 hexes, A9.4; Normal Range, "
            f"A9.61): {gun.name}'s range gives its To Hit Number on the To Hit Table, which "
            "the players read against the Final DR.",
            rule="A9.6",
        )


def _check_helper(state: AslState, gun: Weapon, action: ToHit) -> Unit | None:
    """The second SMC firing an SMC's MG with him (A9.12, A.7)."""
    if action.helper is None:
        return None
    helper = state.unit(action.helper)
    if helper is None:
        raise InvalidInput(f"There is no unit called {action.helper!r} in this game.")
    owner = state.unit(gun.possessor or "")
    if not helper.is_smc or helper.side != gun.side or helper is owner:
        raise IllegalAction(
            f"{helper.name} is not a second friendly SMC free to fire the MG.", rule="A9.12"
        )
    if not helper.good_order:
        raise IllegalAction(f"{helper.name} is broken and cannot fire.", rule="A.7")
    return helper


def _check_to_kill(gun: Weapon, owner: Unit | None, helper: Unit | None, action: ToHit) -> None:
    """A9.61: a MG's AFV To Kill attack, made alone (one MG, as this command fires), within its
    Normal Range and without any halved FP the bot knows of: a lone leader's Area Fire (A9.12),
    a pinned firer."""
    if not gun.is_mg:
        raise IllegalAction(
            f"to-kill is a MG's AFV To Kill attack; {gun.name} is not a MG (the hit of a Gun, "
            "PSK or ATR is followed by its To Kill DR anyway).",
            rule="A9.61",
        )
    need_range(action.range, "a MG To Kill attack (within Normal Range)")
    assert action.range is not None
    if gun.dm:  # only a German HMG/MMG fires dismantled, as a German LMG (A9.8, reading 57)
        raise IllegalAction(
            f"{gun.name} is dismantled and fires as a German LMG, whose Normal Range is not in "
            "our sources: a MG To Kill attack is made within Normal Range.",
            rule="A9.61",
        )
    if gun.normal_range is None:
        raise InvalidInput(
            f"A MG To Kill attack is made within Normal Range (A9.61): record {gun.name}'s "
            "(/asl weapon add … normal-range: update:true)."
        )
    if action.range > gun.normal_range:
        raise IllegalAction(
            f"A MG To Kill attack is made within Normal Range: {gun.name}'s is "
            f"{gun.normal_range} hexes, the AFV is at {action.range}.",
            rule="A9.61",
        )
    if owner is not None and owner.kind == "leader" and helper is None:
        raise IllegalAction(
            f"{owner.name} fires {gun.name} alone as Area Fire (A9.12): a MG To Kill attack "
            "is made without any halved FP.",
            rule="A9.61",
        )
    if owner is not None and owner.pinned:
        raise IllegalAction(
            f"{owner.name} is pinned and fires at half FP: a MG To Kill attack is made without "
            "any halved FP.",
            rule="A9.61",
        )


def _validate_mg_as_ordnance(state: AslState, mg: Weapon, phase: str, action: ToHit) -> None:
    """A MG firing as ordnance (A9.6) keeps every limit of A9.2/A9.11, and never uses
    Sustained Fire (A9.3): a MG marked First Fire has no other shot in the MPh or DFPh. Its To
    Hit DR is fire at an armored vehicle (A9.6), which MG fire beyond 16 hexes never affects
    (A9.4, reading 56; a CMG/IFE excepted)."""
    if action.intensive:
        raise IllegalAction("Only a Gun may use Intensive Fire.", rule="C5.6")
    if action.range is not None and action.range > LEADER_RANGE and not mg.cmg:
        raise IllegalAction(
            f"{mg.name} fires as ordnance at an armored vehicle (A9.6): beyond {LEADER_RANGE} "
            "hexes MG fire needs a leader directing it and then has no effect vs armored "
            "targets.",
            rule="A9.4",
        )
    if mg.fire_marker != "none":
        if mg.fire_marker == "first" and phase in ("mph", "dfph"):
            raise IllegalAction(
                f"{mg.name} is marked First Fire, so this shot would be Sustained Fire, which a "
                "MG firing as ordnance may not use.",
                rule="A9.3",
            )
        raise IllegalAction(
            f"{mg.name} is {marker_text(mg.fire_marker)} and may not fire in the "
            f"{PHASE_NAMES[phase]}.",
            rule="A9.3" if mg.fire_marker == "final" else "A9.2",
        )
    if phase == "mph":
        check_shot_limit(state, [mg], action.targets, action.location, action.mf)


def _rof_marker(
    gun: Weapon, action: ToHit, phase: str, colored: int, steps: list[Step], facts: list[Fact]
) -> dict[str, object]:
    """A fired Gun's marker and whether it keeps Multiple ROF (C5.6, A9.2, C2.24); adds its
    steps and facts, returns the weapon's update."""
    rof_rule = "A9.2" if gun.is_mg else "C2.24"
    marker: FireMarker
    if action.intensive:
        marker = "intensive"
        steps.append(Step(rule="C5.6", text=f"{gun.name} marked Intensive Fire"))
        if gun.rof is not None:
            facts.append((f"ROF ({gun.name})", "lost"))
    elif gun.rof is not None and colored <= gun.rof:
        marker = gun.fire_marker
        facts.append((f"ROF ({gun.name})", "kept"))
        steps.append(
            Step(rule=rof_rule, text=f"colored dr {colored} ≤ ROF {gun.rof} — keeps Multiple ROF")
        )
    else:
        marker = PHASE_FIRE_MARKER[phase]
        if gun.rof is not None:
            facts.append((f"ROF ({gun.name})", "lost"))
        shown = "no marker needed" if marker == "none" else f"{MARKER_NAMES[marker]} counter"
        steps.append(Step(rule=rof_rule, text=f"{gun.name}: {shown}"))
    update: dict[str, object] = {"fire_marker": marker}
    kept = not action.intensive and gun.rof is not None and colored <= gun.rof
    if not kept:
        update["spent"] = True  # A9.2: no Multiple ROF left this phase
    elif phase == "pfph":
        update["prep_fired"] = True  # A3: no marker while it keeps ROF, but none in the AFPh
    return update


def _stated_steps(gun: Weapon, action: ToHit) -> list[Step]:
    """What the player stated and the bot checked: OVR Prevention (FB16.52), a MG's AFV To Kill
    attack (A9.61)."""
    steps = []
    if action.ovr_prevention:
        steps.append(
            Step(rule="FB16.52", text=f"{gun.name} fires as OVR Prevention at an overrunning AFV")
        )
    if action.to_kill:
        steps.append(
            Step(
                rule="A9.61",
                text=f"AFV To Kill attack by {gun.name} alone at range {action.range} (Normal "
                f"Range {gun.normal_range}), FP not halved: on a hit the AFV Kill Table decides "
                "(< Final Kill Number eliminates, = Stuns)",
            )
        )
    return steps


def resolve_tohit(state: AslState, action: ToHit, dice: Dice) -> Outcome[AslState]:
    """Resolve a To Hit DR for a Gun (A9.7, C5.6, C8.9, FB16.41-16.43, FB16.52, FB16.62).

    >>> from rules_core.asl.system import SYSTEM
    >>> from rules_core.asl.actions import AddWeapon, SetLevel, SetPhase
    >>> from rules_core.dice import ScriptedDice
    >>> st = SYSTEM.new_state(["Axis", "Allied"], {})
    >>> for a in (SetLevel(side="Axis", level=4), SetPhase(phase="dfph", side="Allied"),
    ...           AddWeapon(name="PaK 40", side="Axis", kind="gun", repair=1)):
    ...     st = SYSTEM.resolve(st, a, ScriptedDice([])).state
    >>> resolve_tohit(st, ToHit(gun="PaK 40"), ScriptedDice([5, 6])).fact("PaK 40")
    'fine, marked Low Ammo'
    """
    gun, phase, level, ammo, usage = _validate(state, action)
    figures = fired_as(state, gun)  # a dm German HMG/MMG: the LMG's are not ours (A9.8)
    colored, white = dice.DR("To Hit DR")
    roll = dice.rolls[-1]
    dr = colored + white
    plan = WeaponPlan(
        name=gun.name,
        kind=gun.kind,
        printed_b=gun.printed_b,
        printed_x=gun.printed_x,
        rof=figures.rof,
        lowering=action.lowering + (INTENSIVE_FIRE_LOWERING if action.intensive else 0),
        level=level,
        fb_b0=fb_original_b(gun),
        low_ammo=gun.low_ammo,
        sustained=action.intensive,
        pooled=False,
    )
    fate, normal, fb, mark = weapon_fate(plan, dr)
    steps = [Step(rule=rule, text=text) for rule, text in usage.notes]
    if figures is not gun:
        steps.append(Step(rule="A9.8", text=AS_LMG.format(name=gun.name)))
    steps += [
        Step(
            rule="C3",
            text=f"To Hit DR {dr} ({colored},{white}); Final DR {dr + action.drm}",
            dice=(roll,),
            modifiers=(Modifier(label="To Hit DRM", value=action.drm),) if action.drm else (),
        )
    ]
    if action.intensive:
        steps.append(Step(rule="C5.6", text="Intensive Fire — B# lowered by 2 (A.11)"))
    steps += _stated_steps(gun, action)
    result = WeaponResult(
        name=gun.name,
        fate=fate,
        normal=normal,
        fb=fb,
        candidate=fate != Fate.OK,
        affected=fate != Fate.OK,
        mark_low=mark,
        rof=None,
        marker=None,
    )
    rule, text = weapon_text(plan, result, dr)
    steps.append(Step(rule=rule, text=text))
    word = fate_word(gun.kind, fate)
    if mark:
        word += ", marked Low Ammo"
    facts: list[Fact] = [(gun.name, word)]
    update: dict[str, object] = {}
    if fate == Fate.MALF:
        update["status"] = "malfunctioned"
    elif fate == Fate.ELIM:
        update["status"] = "disabled" if gun.kind in ("gun", "veh_mg") else "eliminated"
    if mark:
        update["low_ammo"] = True
    ammo_effect = depletion_result(dr, ammo[1]) if ammo is not None else None
    if fate == Fate.OK and ammo_effect == "not fired, depleted":
        steps.append(Step(rule="C8.9", text=f"the shot is not fired — {gun.name} may still fire"))
    elif fate == Fate.OK:
        update.update(_rof_marker(figures, action, phase, colored, steps, facts))
    if ammo is not None and ammo_effect is not None:
        kind, number = ammo
        effect = ammo_effect
        rule = "FB16.62" if level >= 2 else "C8.9"
        steps.append(
            Step(
                rule=rule, text=f"{kind}: Original DR {dr} vs Depletion Number {number} — {effect}"
            )
        )
        facts.append((kind, effect))
        if effect != "fired":
            update["depleted"] = (*gun.depleted, kind)
    san_side = enemy_side(state, gun.side)
    enemy = state.side(san_side) if san_side is not None else None
    if enemy is not None and enemy.san >= MIN_SAN and dr == enemy.san:
        steps.append(
            Step(
                rule="A14.1",
                text=f"Original DR {dr} = the {enemy.name} SAN {enemy.san} — the {enemy.name} "
                "Sniper is activated (its attack follows this DR's effects)",
            )
        )
        facts.append((f"Sniper ({enemy.name})", "activated"))
    new = state.with_weapons({gun.name: replaced(gun, update)}) if update else state
    new, ended = standing_lanes(new)
    if ended:
        steps.append(Step(rule="A9.223", text=f"the Fire Lane of {', '.join(ended)} is removed"))
    new = record_usage(new, usage, phase)
    if gun.is_mg and phase == "mph" and action.location is not None:
        shots = list(new.shots)
        for target in action.targets:
            shots = count_shot(shots, gun.name, target, action.location)
        new = replaced(new, {"shots": tuple(shots)})
    return AslOutcome(state=new, steps=tuple(steps), rolls=(roll,), facts=tuple(facts))


__all__ = ["depletion_result", "effective_depletion_number", "resolve_tohit"]
