"""IFT attacks by any mix of weapons and Inherent-FP units (A9.2, A9.3, A9.7, A9.71, A9.22, FB16).

A9.2-A9.71 and FB16.2-16.5, kept apart as a chess library keeps a move's legality apart from
making it:

* :mod:`~rules_core.asl.fire.legality` — who may fire, in which phase, with what (no dice);
* :mod:`~rules_core.asl.fire.fire_lane` — when a Fire Lane may be laid, and what stands with it
  (A9.22, A9.222, A9.223); :mod:`~rules_core.asl.fire.covered_arc` — the stated terrain's
  fixed Covered Arc (A9.21);
* :mod:`~rules_core.asl.fire.usage` — what the phase and Player Turn already used (A9.11, A9.12);
* :mod:`~rules_core.asl.fire.plan` — :func:`plan_fire` runs the checks and gathers the numbers
  the dice will be read against; :func:`weapon_candidates` / :func:`mmc_candidates` say who
  takes part in each Random Selection for an Original DR;
* :mod:`~rules_core.asl.fire.result` — :func:`settle`, the pure result of the dice, its facts,
  and :func:`fire_odds`, the exact odds;
* :mod:`~rules_core.asl.fire.resolve` — :func:`resolve_fire` rolls, explains and applies;
* :mod:`~rules_core.asl.fire.apply` — the state after the attack.
"""

from __future__ import annotations

from rules_core.asl.fire.apply import UNIT_MARKER_AFTER, apply_fire, count_shot, record_usage
from rules_core.asl.fire.legality import (
    AS_LMG,
    LEADER_RANGE,
    dm_fires_as_lmg,
    fired_as,
    firing_side,
    shots_taken,
    weapon_maker,
)
from rules_core.asl.fire.plan import (
    FirePlan,
    MmcPlan,
    WeaponPlan,
    mmc_candidates,
    plan_fire,
    weapon_candidates,
    weapon_fate,
)
from rules_core.asl.fire.resolve import resolve_fire
from rules_core.asl.fire.result import (
    PHASE_FIRE_MARKER,
    FireResult,
    WeaponResult,
    fate_word,
    fire_facts,
    fire_odds,
    settle,
    weapon_text,
)
from rules_core.asl.fire.usage import MG_CAPACITY, Usage, mg_usage

__all__ = [
    "AS_LMG",
    "LEADER_RANGE",
    "MG_CAPACITY",
    "PHASE_FIRE_MARKER",
    "UNIT_MARKER_AFTER",
    "FirePlan",
    "FireResult",
    "MmcPlan",
    "Usage",
    "WeaponPlan",
    "WeaponResult",
    "apply_fire",
    "count_shot",
    "dm_fires_as_lmg",
    "fate_word",
    "fire_facts",
    "fire_odds",
    "fired_as",
    "firing_side",
    "mg_usage",
    "mmc_candidates",
    "plan_fire",
    "record_usage",
    "resolve_fire",
    "settle",
    "shots_taken",
    "weapon_candidates",
    "weapon_fate",
    "weapon_maker",
    "weapon_text",
]
