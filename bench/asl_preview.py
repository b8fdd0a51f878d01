"""What one ``/asl … preview:true`` costs: the rules' work for each kind of declaration.

    .venv/bin/python -m bench.asl_preview [--runs N]

For each case it prints the best and the median of N in-process calls of what the service runs
off the event loop for a preview (``SYSTEM.preview_fields`` for a Fire Group, otherwise
``SYSTEM.odds``), in milliseconds, and how many lines the preview has. The best is the cost of
the work itself; the median also holds whatever else the machine was doing meanwhile. The
target is ≤ 5 ms for every legal declaration. For comparison it also times the full joint
enumeration that the preview replaced (``fire_odds``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from rules_core.asl import SYSTEM
from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    AslAction,
    Check,
    Fire,
    Repair,
    SetLevel,
    SetPhase,
    ToHit,
)
from rules_core.asl.examples import build_state, fb16_fire_group
from rules_core.asl.fire import fire_odds
from rules_core.asl.state import AslState


def fire_group(level: int, mgs: int, squads: int) -> tuple[AslState, Fire]:
    """``mgs`` MGs (HMG, MMG, LMG in turn, each held by its own squad) and ``squads`` more
    squads firing their Inherent FP, at FB level ``level``, in the Axis PFPh."""
    kinds = [(11, 3), (None, 2), (None, 1)]  # (printed B#, ROF)
    actions: list[AslAction] = [SetLevel(side="Axis", level=level)]
    weapons = []
    for i in range(mgs):
        b, rof = kinds[i % 3]
        actions.append(AddUnit(name=f"H{i}", side="Axis", kind="squad", replaced_by=("4-4-7",)))
        actions.append(
            AddWeapon(name=f"MG{i}", side="Axis", kind="sw_mg", b=b, rof=rof, owner=f"H{i}")
        )
        weapons.append(f"MG{i}")
    units = []
    for i in range(squads):
        actions.append(AddUnit(name=f"S{i}", side="Axis", kind="squad", replaced_by=("4-4-7",)))
        units.append(f"S{i}")
    actions.append(SetPhase(phase="pfph", side="Axis"))
    return build_state(actions), Fire(weapons=tuple(weapons), units=tuple(units))


def other_cases() -> list[tuple[str, AslState, AslAction]]:
    gun = build_state(
        [
            SetLevel(side="Axis", level=4),
            AddUnit(name="C", side="Axis", kind="crew"),
            AddWeapon(name="PaK 40", side="Axis", kind="gun", owner="C", special_ammo=("APCR:6",)),
            AddUnit(name="S", side="Axis", kind="squad", smoke=3),
            AddWeapon(
                name="LMG", side="Axis", kind="sw_mg", owner="S", repair=2, status="malfunctioned"
            ),
            SetPhase(phase="pfph", side="Axis"),
        ]
    )
    rph = build_state(
        [
            SetLevel(side="Axis", level=5),
            AddUnit(name="S", side="Axis", kind="squad"),
            AddWeapon(
                name="LMG", side="Axis", kind="sw_mg", owner="S", repair=2, status="malfunctioned"
            ),
            SetPhase(phase="rph", side="Axis"),
        ]
    )
    return [
        ("To Hit, PaK 40 with APCR at level 4", gun, ToHit(gun="PaK 40", special_ammo="APCR")),
        ("Repair dr at level 5", rph, Repair(weapon="LMG")),
        ("PF check at level 4", gun, Check(kind="pf", unit="S", year=1945)),
    ]


def time_ms(call: Callable[[], Any], runs: int) -> tuple[float, float]:
    """(best, median) of ``runs`` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    cases: list[tuple[str, AslState, AslAction]] = [
        ("Fire: lone LMG at level 4", *fire_group(4, 1, 0)),
        (
            "Fire: the FB16 EX Fire Group (HMG, LMG, 2 squads, 9-1) at level 4",
            fb16_fire_group(),
            Fire(weapons=("HMG", "LMG"), units=("A", "B"), leader="9-1"),
        ),
        ("Fire: 6 MGs + 6 squads at level 5", *fire_group(5, 6, 6)),
        ("Fire: 8 MGs + 8 squads at level 5", *fire_group(5, 8, 8)),
        ("Fire: 10 MGs at level 4", *fire_group(4, 10, 0)),
        ("Fire: 10 MGs + 10 squads at level 5", *fire_group(5, 10, 10)),
        ("Fire: 20 MGs + 20 squads at level 5 (too many to rank)", *fire_group(5, 20, 20)),
        *other_cases(),
    ]
    print(f"preview cost, {runs} calls each: best / median (ms), lines shown")
    for name, state, action in cases:
        fields = SYSTEM.preview_fields(state, action)
        if fields is not None:
            best, median = time_ms(partial(SYSTEM.preview_fields, state, action), runs)
            lines = sum(len(value.splitlines()) for _, value in fields)
        else:
            best, median = time_ms(partial(SYSTEM.odds, state, action), runs)
            lines = len(SYSTEM.odds(state, action))
        print(f"  {name:<66} {best:6.2f} / {median:6.2f}   {lines:3d} lines")
    print("the joint enumeration a Fire preview used to list (fire_odds), one call:")
    for name, (state, action) in [
        ("6 MGs + 6 squads at level 5", fire_group(5, 6, 6)),
    ]:
        start = time.perf_counter()
        joint = fire_odds(state, action)
        elapsed = (time.perf_counter() - start) * 1000
        print(f"  {name:<66} {elapsed:8.1f} ms   {len(joint):6d} lines")


if __name__ == "__main__":
    main()
