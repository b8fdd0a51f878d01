"""What else happens to a SW in play: self-destruction (A9.73), dismantling (A9.8) and Random
SW/Gun destruction after a Final KIA (A9.74).

The IFT itself is the players' (it is not in our sources): for A9.74 the player reads, off the
column of the attack, the highest DR that is a KIA and the highest that is a K, and the bot rolls
and applies the dr for each weapon.
"""

from __future__ import annotations

from rules_core.asl.actions import DestroyWeapon, Dismantle, RandomDestruction
from rules_core.asl.fire import (
    PHASE_FIRE_MARKER,
    dm_fires_as_lmg,
    mg_usage,
    record_usage,
    weapon_maker,
)
from rules_core.asl.state import FIRE_PHASES, PHASE_NAMES, AslOutcome, AslState, Weapon
from rules_core.asl.turn import check_possessor_fires, check_side_fires, fire_phase, marker_text
from rules_core.dice import Dice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.outcome import Fact, Modifier, Outcome, Step

DISMANTLED_ONLY = (
    "only a mortar (mortar:true: a light one of four PP or less, or of 76-82mm), a non-Russian "
    "HMG/MMG (give mg:hmg or mg:mmg) or the Russian .50 cal (mg:50cal) is"
)
"""A9.8: "Any light mortar of ≤ four PP, 76-82mm mortar, or non-Russian HMG/MMG [EXC: Russian .50
Cal MG] may have its PP halved (FRU) if in a dismantled state"."""

DISMANTLE_PHASES = ("pfph", "dfph")
"""A9.73, A9.8: a SW is destroyed or (dis)assembled in a PFPh or DFPh."""


def _weapon(state: AslState, name: str) -> Weapon:
    weapon = state.weapon(name)
    if weapon is None:
        raise InvalidInput(f"There is no weapon called {name!r} in this game.")
    return weapon


def _instead_of_firing(state: AslState, weapon: Weapon, rule: str, what: str) -> str:
    """The checks of a use that takes the place of firing (A9.73, A9.8): a PFPh/DFPh of the
    side that may fire in it, a Good Order possessor, a weapon still allowed to fire."""
    phase = fire_phase(state, None, False, what)
    if phase not in DISMANTLE_PHASES:
        raise IllegalAction(
            f"A SW is {what} only in a Prep Fire or Defensive Fire Phase.", rule=rule
        )
    check_side_fires(state, phase, weapon.side)
    if not weapon.is_sw and not (weapon.kind == "gun" and (rule == "A9.73" or weapon.mortar)):
        raise IllegalAction(f"{weapon.name} is not a Support Weapon.", rule=rule)
    check_possessor_fires(state, weapon)
    if weapon.fire_marker not in ("none",) or weapon.spent:
        shown = marker_text(weapon.fire_marker) if weapon.fire_marker != "none" else "used"
        raise IllegalAction(
            f"{weapon.name} is {shown} in the {PHASE_NAMES[phase]}, so it could not fire now.",
            rule=rule,
        )
    return phase


def destroy_weapon(state: AslState, action: DestroyWeapon) -> Outcome[AslState]:
    """A9.73: destroy (or malfunction) a SW instead of firing it; it counts as its use.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> out = destroy_weapon(fb16_fire_group(), DestroyWeapon(name="LMG"))
    >>> out.state.weapon("LMG").status, out.explanation()
    ('eliminated', ['A9.73: B destroys LMG instead of firing it (a use of the SW)'])
    """
    weapon = _weapon(state, action.name)
    if weapon.status != "ok":
        raise IllegalAction(f"{weapon.name} is {weapon.status} and cannot be used.", rule="A9.73")
    phase = _instead_of_firing(state, weapon, "A9.73", "destroyed")
    usage = mg_usage(state, [weapon], [], phase=phase, range_=None, helper=None, leader=None)
    status = "malfunctioned" if action.malfunction else "eliminated"
    verb = "malfunctions" if action.malfunction else "destroys"
    new = state.with_weapons(
        {
            weapon.name: replaced(
                weapon,
                {
                    "status": status,
                    "spent": True,
                    "fire_marker": PHASE_FIRE_MARKER[phase],
                },
            )
        }
    )
    new = record_usage(new, usage, phase)
    new = replaced(new, {"fire_lanes": tuple(f for f in new.fire_lanes if f.weapon != weapon.name)})
    steps = [Step(rule=rule, text=text) for rule, text in usage.notes]
    steps.append(
        Step(
            rule="A9.73",
            text=f"{weapon.possessor} {verb} {weapon.name} instead of firing it (a use of the "
            f"{'Gun' if weapon.kind == 'gun' else 'SW'})",
        )
    )
    return AslOutcome(state=new, steps=tuple(steps), facts=((weapon.name, status),))


def dismantlable(state: AslState, weapon: Weapon) -> bool:
    """A9.8: a light or 76-82mm mortar, a non-Russian HMG/MMG, or the Russian .50 cal may be
    dismantled.

    >>> from rules_core.asl.examples import build_state
    >>> st = build_state([])
    >>> dismantlable(st, Weapon(name="DShK", side="Allied", kind="sw_mg", mg="hmg"))
    False
    >>> dismantlable(st, Weapon(name=".50", side="Allied", kind="sw_mg", mg="50cal"))
    True
    >>> dismantlable(st, Weapon(name="81mm", side="Axis", kind="gun", mortar=True))
    True
    """
    if weapon.mortar:
        return True
    if weapon.kind != "sw_mg":
        return False
    if weapon.mg == "50cal":
        return True
    return weapon.mg in ("hmg", "mmg") and weapon_maker(state, weapon) != "Russian"


def dismantle(state: AslState, action: Dismantle) -> Outcome[AslState]:
    """A9.8: dismantle or assemble a MG in a PFPh/DFPh in which it could fire; this uses it
    (all of its ROF) and counts against what its possessor may fire.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> st = st.with_weapons({"HMG": st.weapon("HMG").model_copy(update={"mg": "hmg"})})
    >>> out = dismantle(st, Dismantle(name="HMG"))
    >>> out.state.weapon("HMG").dm, out.explanation()[-1]
    (True, 'A9.8: A dismantles HMG (a use of the SW, all its ROF); it fires as a German LMG')
    """
    weapon = _weapon(state, action.name)
    if not dismantlable(state, weapon):
        raise IllegalAction(f"{weapon.name} cannot be dismantled: {DISMANTLED_ONLY}.", rule="A9.8")
    if action.assemble != weapon.dm:
        raise IllegalAction(
            f"{weapon.name} is {'already assembled' if action.assemble else 'already dismantled'}.",
            rule="A9.8",
        )
    what = "assembled" if action.assemble else "dismantled"
    phase = _instead_of_firing(state, weapon, "A9.8", what)
    usage = mg_usage(state, [weapon], [], phase=phase, range_=None, helper=None, leader=None)
    new = state.with_weapons(
        {
            weapon.name: replaced(
                weapon,
                {
                    "dm": not action.assemble,
                    "spent": True,
                    "fire_marker": PHASE_FIRE_MARKER[phase],
                },
            )
        }
    )
    new = record_usage(new, usage, phase)
    verb = "assembles" if action.assemble else "dismantles"
    used = "Gun" if weapon.kind == "gun" else "SW"
    text = f"{weapon.possessor} {verb} {weapon.name} (a use of the {used}, all its ROF)"
    if not action.assemble:
        text += (
            "; it fires as a German LMG"
            if dm_fires_as_lmg(state, weapon)
            else "; it may not fire until assembled"
        )
    steps = [Step(rule=rule, text=text) for rule, text in usage.notes]
    steps.append(Step(rule="A9.8", text=text))
    return AslOutcome(state=new, steps=tuple(steps), facts=((weapon.name, what),))


def _check_kia_phase(state: AslState, action: RandomDestruction) -> None:
    """A9.74 "When a Final KIA result occurs on the IFT": an IFT attack of a fire phase (A3) —
    Close Combat destroys weapons by its own rule (11.13) — and the −1 of "a fully-tracked AFV
    OVR" only in the MPh, where an OVR happens (reading 55)."""
    phase = state.phase
    if phase is None:
        raise IllegalAction(
            "No Player Turn has begun; a Final KIA comes from an IFT attack in a fire phase "
            "(start one with /asl phase).",
            rule="A9.74",
        )
    if phase not in FIRE_PHASES:
        cc = " (Close Combat destroys weapons by its own rule, 11.13)" if phase == "ccph" else ""
        raise IllegalAction(
            "A Final KIA on the IFT comes from an attack in a fire phase (PFPh, MPh, DFPh, "
            f"AFPh), not in the {PHASE_NAMES[phase]}{cc}.",
            rule="A9.74",
        )
    if action.ovr and phase != "mph":
        raise IllegalAction(
            "A fully-tracked AFV overruns in the Movement Phase, not in the "
            f"{PHASE_NAMES[phase]}: its −1 does not apply.",
            rule="A9.74",
        )


def random_destruction(state: AslState, action: RandomDestruction, dice: Dice) -> Outcome[AslState]:
    """A9.74: one dr per weapon of the units a Final KIA eliminated, on the attack's IFT column
    (the player gives its highest KIA and K DR): KIA eliminates, K malfunctions (eliminates a
    weapon already malfunctioned); −1 after a fully-tracked AFV's OVR.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> from rules_core.dice import ScriptedDice
    >>> out = random_destruction(fb16_fire_group(),
    ...     RandomDestruction(weapons=("HMG", "LMG"), kia=2, k=4), ScriptedDice([2, 4]))
    >>> out.facts
    (('HMG', 'eliminated'), ('LMG', 'malfunctioned'))
    """
    if not action.weapons:
        raise InvalidInput("Name the weapons the eliminated units possessed.")
    _check_kia_phase(state, action)
    if action.k < action.kia:
        raise InvalidInput("On an IFT column the K results lie above the KIA ones: k ≥ kia.")
    weapons = []
    for name in action.weapons:
        weapon = _weapon(state, name)
        if weapon.status in ("eliminated", "disabled"):
            raise IllegalAction(f"{weapon.name} is already {weapon.status}.", rule="A9.74")
        if weapon in weapons:
            raise InvalidInput(f"{weapon.name} is named twice.")
        weapons.append(weapon)
    drm = -1 if action.ovr else 0
    steps: list[Step] = []
    facts: list[Fact] = []
    changed: dict[str, Weapon] = {}
    for weapon in weapons:
        dr = dice.dr(f"SW destruction dr ({weapon.name})")
        roll = dice.rolls[-1]
        final = dr + drm
        permanent = "disabled" if weapon.kind in ("gun", "veh_mg") else "eliminated"
        if final <= action.kia:
            result, why = permanent, f"≤ {action.kia}: KIA"
        elif final <= action.k:
            result = permanent if weapon.status == "malfunctioned" else "malfunctioned"
            why = f"≤ {action.k}: K" + (
                " on a malfunctioned weapon" if result != "malfunctioned" else ""
            )
        else:
            result, why = "no effect", f"> {action.k}"
        modifiers = (
            (Modifier(label="fully-tracked AFV OVR", value=-1, rule="A9.74"),) if drm else ()
        )
        steps.append(
            Step(
                rule="A9.74",
                text=f"SW destruction dr {dr}, Final {final} {why} — {weapon.name} {result}",
                dice=(roll,),
                modifiers=modifiers,
            )
        )
        facts.append((weapon.name, result))
        if result != "no effect":
            changed[weapon.name] = replaced(weapon, {"status": result})
    new = state.with_weapons(changed)
    gone = {n for n, w in changed.items() if w.status != "ok"}
    new = replaced(new, {"fire_lanes": tuple(f for f in new.fire_lanes if f.weapon not in gone)})
    return AslOutcome(state=new, steps=tuple(steps), facts=tuple(facts))


__all__ = ["destroy_weapon", "dismantlable", "dismantle", "random_destruction"]
