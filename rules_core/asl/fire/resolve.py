"""Resolving an IFT attack: roll its dice, explain each ruling, apply it (A9.2-A9.71, FB16.2-16.5).

:func:`resolve_fire` plans the attack (refusing it before any die), rolls the IFT DR and each
Random Selection, settles the result (:func:`~rules_core.asl.fire.result.settle`), writes one
explanation line per ruling, and applies the result (:func:`~rules_core.asl.fire.apply.apply_fire`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import Fate
from rules_core.asl.fire.apply import apply_fire
from rules_core.asl.fire.legality import LEADER_RANGE
from rules_core.asl.fire.plan import FirePlan, mmc_candidates, plan_fire, weapon_candidates
from rules_core.asl.fire.result import FireResult, fire_facts, lane_facts, settle, weapon_text
from rules_core.asl.random_selection import random_selection
from rules_core.asl.state import MARKER_NAMES, AslOutcome, AslState
from rules_core.dice import Dice, Roll
from rules_core.outcome import Modifier, Outcome, Step


@dataclass(frozen=True)
class Rolled:
    """The attack's dice: the IFT DR and the two Random Selections (A9.71, FB16.21)."""

    ift: Roll
    pool: tuple[str, ...]
    """Weapons in the A9.71 Random Selection."""
    weapon_rolls: tuple[Roll, ...]
    weapons_selected: frozenset[str]
    triggered: tuple[str, ...]
    """MMC in the FB16.21 Random Selection."""
    mmc_rolls: tuple[Roll, ...]
    mmc_selected: frozenset[str]


def roll_fire(plan: FirePlan, dice: Dice) -> tuple[int, int, Rolled]:
    """Roll the IFT DR, then a Random Selection among the weapons and among the MMC it reaches.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> from rules_core.dice import ScriptedDice
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("LMG",)))
    >>> roll_fire(plan, ScriptedDice([6, 6]))[2].pool
    ('LMG',)
    """
    colored, white = dice.DR("IFT DR")
    ift = dice.rolls[-1]
    dr = colored + white
    pool = weapon_candidates(plan, dr)
    before = len(dice.rolls)
    weapons_selected = random_selection(pool, dice)
    weapon_rolls = tuple(dice.rolls[before:])
    triggered = mmc_candidates(plan, dr)
    before = len(dice.rolls)
    mmc_selected = random_selection(triggered, dice)
    mmc_rolls = tuple(dice.rolls[before:])
    rolled = Rolled(ift, pool, weapon_rolls, weapons_selected, triggered, mmc_rolls, mmc_selected)
    return colored, white, rolled


def _shown(rolls: tuple[Roll, ...]) -> str:
    """``LMG 4, HMG 6``: each candidate's Random Selection dr."""
    return ", ".join(f"{r.label[len('Random Selection dr (') : -1]} {r.total}" for r in rolls)


LEADERSHIP = re.compile(r"(\d+)\s*([-+−])\s*(\d)\s*$")
"""A leader's counter, morale then leadership DRM: ``9-1``, ``8-0``, ``7+1``."""


def leadership_drm(quality: str) -> int | None:
    """The leadership DRM printed on a leader's counter (A7.53), or ``None`` if not recorded.

    >>> leadership_drm("9-1"), leadership_drm("SS 10-2"), leadership_drm("6+1"), leadership_drm("")
    (-1, -2, 1, None)
    """
    found = LEADERSHIP.search(quality)
    if found is None:
        return None
    value = int(found.group(3))
    return value if found.group(2) == "+" else -value


def signed(value: int) -> str:
    """``+2``, ``−1`` (the rulebook's minus), ``0``.

    >>> signed(2), signed(-1), signed(0)
    ('+2', '−1', '0')
    """
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "0"


OTHER_DRM = "TEM, Hindrance, FFMO/FFNAM, CX…"
"""What the bot does not know and the player's ``drm`` holds (A7)."""


def final_dr(state: AslState, action: Fire, dr: int) -> tuple[int, tuple[Modifier, ...], str]:
    """The Final DR the bot can give: the Original DR, the directing leader's DRM (A7.53) and the
    other DRM the player states (``drm``); with what it includes, in words.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> final, modifiers, words = final_dr(fb16_fire_group(), Fire(units=("A",), leader="9-1",
    ...                                                           drm=2), 7)
    >>> final, words.split(";")[0]
    (8, 'leadership −1 (9-1), drm +2 as given')
    """
    modifiers: list[Modifier] = []
    parts: list[str] = []
    leader = state.unit(action.leader) if action.leader is not None else None
    if leader is not None:
        value = leadership_drm(leader.quality)
        if value is None:
            parts.append(f"no leadership DRM for {leader.name} (record his counter, e.g. 9-1)")
        else:
            modifiers.append(
                Modifier(label=f"leadership ({leader.name})", value=value, rule="A7.53")
            )
            parts.append(f"leadership {signed(value)} ({leader.name})")
    if action.drm:
        modifiers.append(Modifier(label="IFT DRM", value=action.drm))
        parts.append(f"drm {signed(action.drm)} as given")
    else:
        parts.append("no drm given")
    words = ", ".join(parts) + f"; {OTHER_DRM} count only in drm"
    return dr + sum(m.value for m in modifiers), tuple(modifiers), words


def _long_range_step(state: AslState, action: Fire, plan: FirePlan) -> Step | None:
    """A9.4 beyond 16 hexes: unconcealed Infantry is treated as concealed unless broken,
    berserk or overstacked; no effect on armored or aerial targets (not by a CMG/IFE)."""
    if action.range is None or action.range <= LEADER_RANGE:
        return None
    mgs = [state.weapon(w.name) for w in plan.weapons if w.kind in ("sw_mg", "veh_mg")]
    if all(w is not None and w.cmg for w in mgs):
        return None
    head = f"range {action.range} > {LEADER_RANGE} hexes — "
    if action.overstacked:
        text = "the targets' Location is overstacked: they are not treated as concealed"
    elif action.targets:
        seen = []
        for name in action.targets:
            unit = state.unit(name)
            if unit is not None and (unit.broken or unit.berserk):
                seen.append(f"{unit.name} ({'broken' if unit.broken else 'berserk'}) is not")
            else:
                seen.append(f"{name} is")
        text = "; ".join(seen) + " treated as concealed if unconcealed"
    else:
        text = "unconcealed Infantry is treated as concealed unless broken, berserk or overstacked"
    return Step(rule="A9.4", text=head + text + "; no effect on armored or aerial targets")


def _ift_steps(
    state: AslState, action: Fire, plan: FirePlan, colored: int, white: int, rolled: Rolled
) -> list[Step]:
    """The IFT DR and its Final DR (A7, A7.53, A9.22), long range (A9.4), the weapons' Random
    Selection (A9.71, FB16.34)."""
    dr = colored + white
    final, modifiers, words = final_dr(state, action, dr)
    steps = [
        Step(
            rule="A9.22" if plan.lane_residual else "A7",
            text=(
                f"{'Fire Lane Residual' if plan.lane_residual else 'IFT'} DR {dr} "
                f"({colored},{white}); Final DR {final} for the IFT: {words}"
            ),
            dice=(rolled.ift,),
            modifiers=modifiers,
        )
    ]
    long_range = _long_range_step(state, action, plan)
    if long_range is not None:
        steps.append(long_range)
    if rolled.weapon_rolls:
        pool = rolled.pool
        any_fb = any(w.level > 0 for w in plan.weapons if w.name in pool)
        steps.append(
            Step(
                rule="FB16.34" if any_fb else "A9.71",
                text=f"Random Selection among {', '.join(pool)}: {_shown(rolled.weapon_rolls)} — "
                f"{', '.join(n for n in pool if n in rolled.weapons_selected)} affected",
                dice=rolled.weapon_rolls,
            )
        )
    return steps


def _weapon_steps(plan: FirePlan, result: FireResult) -> list[Step]:
    """Each weapon's breakdown (A9.7, A.11, FB16.31-16.42), then its ROF and marker (A9.2, A9.3,
    A9.22)."""
    dr, colored = result.original_dr, result.colored
    plans = {w.name: w for w in plan.weapons}
    steps = []
    for r in result.weapons:
        rule, text = weapon_text(plans[r.name], r, dr)
        steps.append(Step(rule=rule, text=text))
    for r in result.weapons:
        if r.rof == "kept":
            rof = plans[r.name].rof
            steps.append(
                Step(
                    rule="A9.2",
                    text=f"colored dr {colored} ≤ ROF {rof} — {r.name} keeps Multiple ROF",
                )
            )
        elif r.marker is not None and not r.affected:
            if plan.fire_lane:
                steps.append(
                    Step(rule="A9.22", text=f"{r.name} lays a Fire Lane — First Fire counter")
                )
            elif plans[r.name].sustained or plan.fpf:
                why = "Sustained Fire"
                if plan.fpf:
                    why = "FPF (Sustained Fire)" if plans[r.name].sustained else "FPF"
                steps.append(Step(rule="A9.3", text=f"{why} — {r.name} marked Final Fire, no ROF"))
            else:
                rof_text = (
                    f"colored dr {colored} > ROF {plans[r.name].rof} — loses Multiple ROF; "
                    if plans[r.name].rof is not None
                    else ""
                )
                marker = (
                    "no marker needed"
                    if r.marker == "none"
                    else f"{MARKER_NAMES[r.marker]} counter"
                )
                steps.append(Step(rule="A9.2", text=f"{r.name}: {rof_text}{marker}"))
    return steps


def _replacement_steps(plan: FirePlan, result: FireResult, rolled: Rolled) -> list[Step]:
    """FB16.2 Unit Replacement: what triggered it, the Random Selection (FB16.21), each MMC."""
    steps: list[Step] = []
    if not plan.mmc:
        return steps
    triggered = rolled.triggered
    if triggered:
        levels = sorted({m.level for m in plan.mmc if m.name in triggered})
        steps.append(
            Step(
                rule="FB16.2",
                text=f"Original DR {result.original_dr} triggers Unit Replacement at level "
                f"{', '.join(map(str, levels))}: {', '.join(triggered)}",
            )
        )
    if rolled.mmc_rolls:
        steps.append(
            Step(
                rule="FB16.21",
                text=f"Random Selection among {', '.join(triggered)}: {_shown(rolled.mmc_rolls)} "
                f"— {', '.join(n for n in triggered if n in rolled.mmc_selected)} affected",
                dice=rolled.mmc_rolls,
            )
        )
    for name, effect in result.replacement:
        if effect.startswith("replaced"):
            steps.append(Step(rule="A19.13", text=f"after the attack, {name} {effect}"))
        elif effect == "broken":
            steps.append(Step(rule="FB16.2", text=f"{name} cannot lose further quality — broken"))
        elif effect != "no effect":
            steps.append(Step(rule="FB16.2", text=f"{name} is Berserk — unaffected"))
    return steps


def _aftermath_steps(plan: FirePlan, result: FireResult) -> list[Step]:
    """Residual FP (A8.221, FB16.5), a DC that broke (A9.7), Cowering (A7.9, A9.22)."""
    kinds = {w.name: w for w in plan.weapons}
    steps = []
    for r in result.weapons:
        if r.fate != Fate.OK:
            # A8.221 by itself; FB16.5 (and its EX) when the weapon is under FB.
            rule = "FB16.5" if kinds[r.name].level > 0 else "A8.221"
            steps.append(Step(rule=rule, text=f"no Residual FP from {r.name}"))
    if result.no_residual_at_all:
        steps.append(
            Step(rule="FB16.5", text="Original DR 12 in an Axis Small-Arms attack — no Residual FP")
        )
    for r in result.weapons:
        if r.fate != Fate.OK and kinds[r.name].kind == "dc":
            steps.append(
                Step(rule="A9.7", text=f"{r.name} broke — its attack is not resolved (A23.4)")
            )
    if result.cowered:
        steps.append(
            Step(
                rule="A7.9",
                text=f"doubles ({result.colored},{result.white}) with no leader directing — the "
                "firers Cower (one FP column to the left on the IFT)",
            )
        )
        if plan.fire_lane:
            steps.append(
                Step(
                    rule="A9.22",
                    text="the manning Infantry Cowered — no Fire Lane is placed (the MG stays "
                    "marked First Fire)",
                )
            )
    return steps


LANE_STEPS: dict[str, tuple[str, str]] = {
    "none (the MG broke)": ("A9.22", "{mg} broke — no Fire Lane is placed"),
    "none (its Infantry broke)": (
        "A9.223",
        "{mg}'s manning Infantry broke in this attack (FB16.2) — no Fire Lane is placed",
    ),
    "canceled (TPBF)": ("A9.223", "the TPBF situation cancels the Fire Lane of {mg}"),
    "removed (its Infantry broke)": (
        "A9.223",
        "the manning Infantry of {mg} broke in this attack (FB16.2) — its Fire Lane is removed",
    ),
}
"""A lane fact's explanation line (A9.22, A9.223); a lane laid is said by its marker's step."""


def _after_steps(plan: FirePlan, result: FireResult) -> list[Step]:
    """Fire Lanes not placed, canceled or removed (A9.22, A9.223), Covered Arcs fixed (A9.21),
    the enemy Sniper activated (A14.1)."""
    steps = []
    for subject, effect in lane_facts(plan, result):
        if effect in LANE_STEPS:
            rule, text = LANE_STEPS[effect]
            mg = subject[len("Fire Lane (") : -1]
            steps.append(Step(rule=rule, text=text.format(mg=mg)))
    broken = {r.name for r in result.weapons if r.fate != Fate.OK}
    for name in plan.fixes_ca:
        if name not in broken:
            steps.append(
                Step(
                    rule="A9.21",
                    text=f"{name} fired from woods, rubble or a building: its further shots this "
                    "phase only inside this shot's Covered Arc (its own Location included)",
                )
            )
    if plan.san and result.original_dr == plan.san:
        steps.append(
            Step(
                rule="A14.1",
                text=f"Original DR {result.original_dr} = the {plan.san_side} SAN {plan.san} — the "
                f"{plan.san_side} Sniper is activated (its attack follows this DR's effects)",
            )
        )
    return steps


def resolve_fire(state: AslState, action: Fire, dice: Dice) -> Outcome[AslState]:
    """Resolve an IFT attack (A9.2, A9.3, A9.7, A9.71, A9.22, FB16.2-16.5).

    >>> from rules_core.asl.system import SYSTEM
    >>> from rules_core.dice import ScriptedDice
    >>> st = SYSTEM.new_state(["Axis", "Allied"], {})
    >>> from rules_core.asl.actions import AddUnit, AddWeapon, SetPhase
    >>> for a in (AddUnit(name="A", side="Axis", kind="squad"),
    ...           AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A"),
    ...           SetPhase(phase="pfph", side="Axis")):
    ...     st = SYSTEM.resolve(st, a, ScriptedDice([])).state
    >>> out = resolve_fire(st, Fire(weapons=("LMG",)), ScriptedDice([6, 6]))
    >>> out.fact("LMG"), out.explanation()[1]
    ('malfunctioned', 'A9.7: Original DR 12 ≥ B12 — LMG malfunctioned')
    """
    plan = plan_fire(state, action)
    colored, white, rolled = roll_fire(plan, dice)
    result = settle(plan, colored, white, rolled.weapons_selected, rolled.mmc_selected)
    steps: list[Step] = [Step(rule=rule, text=text) for rule, text in plan.usage.notes]
    steps += _ift_steps(state, action, plan, colored, white, rolled)
    steps += _weapon_steps(plan, result)
    steps += _replacement_steps(plan, result, rolled)
    steps += _aftermath_steps(plan, result)
    steps += _after_steps(plan, result)
    new_state = apply_fire(state, action, plan, result)
    if plan.lane_residual and any(r.fate != Fate.OK for r in result.weapons):
        steps.append(Step(rule="A9.22", text="the MG broke — its Fire Lane is removed"))
    return AslOutcome(
        state=new_state,
        steps=tuple(steps),
        rolls=(rolled.ift, *rolled.weapon_rolls, *rolled.mmc_rolls),
        facts=fire_facts(plan, result),
    )


__all__ = ["Rolled", "final_dr", "leadership_drm", "resolve_fire", "roll_fire", "signed"]
