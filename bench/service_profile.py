"""The benchmark's fire cycle through the game service alone, in-process: CPU per action, and
where it goes.

    .venv/bin/python -m bench.service_profile [--cycles 200] [--warmup 20] [--cprofile 30]
        [--extra-units 40] [--dump FILE]

The commands are those of ``bench.run`` (the set-up, then cycles of 6 resets + 1 ``/asl fire``),
built from their console lines by the registry as the console and Discord build them, and handled
by ``GameService.handle`` on a real SQLite file (WAL, ``synchronous=FULL``): no Discord, no
rendering. It prints the CPU time per action (the process: the event loop's thread and the
storage's) and the event loop's thread's alone, and with ``--cprofile N`` the N functions of
most own time (of the loop's thread), with their calls per action (call counts do not depend on
the machine's load; times do), and with ``--dump`` the whole profile for ``pstats``.
``--extra-units N`` plays the same cycle in a larger game (N more squads and N/2 SW MGs set up
before the Fire Group). ``--fixed-seed`` rolls the same dice in every run: the instructions per
action, which the machine's load does not change, are then the difference between two runs
under ``PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null`` with
``--cycles N`` and ``--cycles 0``, divided by ``7 N`` (docs/PERFORMANCE.md). To compare two
checkouts, run this file from each in turn (it runs on the code of the directory it is started
from).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

import bot.storage
from bench.run import ASL_FIRE, ASL_RESET, ASL_SETUP, console_line
from bot.commands.registry import build_action, build_registry, parse_line
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems

PLACE = Place(guild_id=1, channel_id=1)
ALICE = Actor(user_id=1, name="alice")


def commands(lines: list[str], service: GameService) -> list[BaseModel]:
    registry = build_registry(service.systems)
    built = []
    for line in lines:
        words, values = parse_line(line)
        action, _ = build_action(registry.find(words), values)
        built.append(action)
    return built


async def run(
    cycles: int,
    warmup: int,
    top: int,
    directory: Path,
    sort: str = "tottime",
    dump: Path | None = None,
    extra: int = 0,
    fixed: bool = False,
) -> None:
    # a checkout from before open_repository opened it with Repository.open
    opener = getattr(bot.storage, "open_repository", None)
    if opener is None:
        opener = bot.storage.Repository.open  # type: ignore[attr-defined]
    repo = await opener(directory / "profile.db")
    service = (
        GameService(
            repo, InstalledSystems(), seeds=lambda: bytes(range(32)), game_ids=lambda: "g" * 32
        )
        if fixed
        else GameService(repo, InstalledSystems())
    )
    lines = [console_line(c) for c in ASL_SETUP]
    # a larger game: units (and a SW MG for every other one) set up before the Fire Group's
    lines[3:3] = [
        f"/asl unit add name:X{n} side:{'Axis' if n % 2 else 'Allied'} kind:squad"
        for n in range(extra)
    ] + [
        f"/asl weapon add name:XW{n} side:Axis kind:sw_mg b:11 owner:X{n}"
        for n in range(1, extra, 2)
    ]
    setup = commands(lines, service)
    cycle = commands([console_line(c) for c in (*ASL_RESET, ASL_FIRE)], service)
    count = 0

    async def handle(command: BaseModel) -> None:
        nonlocal count
        count += 1
        await service.handle(PLACE, ALICE, f"i{count}", command)

    for command in setup:
        await handle(command)
    for _ in range(warmup):
        for command in cycle:
            await handle(command)
    # the profile counts the event loop's thread's CPU time (the bottleneck), not the wall clock
    profiler = cProfile.Profile(time.thread_time) if top else None
    cpu, wall, loop = time.process_time(), time.perf_counter(), time.thread_time()
    if profiler is not None:
        profiler.enable()
    for _ in range(cycles):
        for command in cycle:
            await handle(command)
    if profiler is not None:
        profiler.disable()
    cpu, wall, loop = (
        time.process_time() - cpu,
        time.perf_counter() - wall,
        time.thread_time() - loop,
    )
    actions = cycles * len(cycle)
    await repo.close()
    if actions:
        print(
            f"{actions} actions ({cycles} cycles of {len(cycle) - 1} resets + 1 fire): "
            f"CPU {1000 * cpu / actions:.3f} ms/action (the loop's thread "
            f"{1000 * loop / actions:.3f}), wall {1000 * wall / actions:.3f} ms/action"
            + (" (under cProfile)" if profiler else "")
        )
    if profiler is not None and actions:
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats(sort).print_stats(top)
        if dump is not None:
            stats.dump_stats(dump)
        print(f"calls per action = ncalls / {actions}")
        print(text.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=200, help="fire cycles measured")
    parser.add_argument("--warmup", type=int, default=20, help="fire cycles before measuring")
    parser.add_argument("--cprofile", type=int, default=0, metavar="N", help="print N functions")
    parser.add_argument(
        "--loop", choices=("asyncio", "uvloop"), default="asyncio", help="the event loop"
    )
    parser.add_argument(
        "--sort", default="tottime", help="tottime (own time, the default) or cumulative"
    )
    parser.add_argument(
        "--extra-units",
        type=int,
        default=0,
        metavar="N",
        help="N more units (and N/2 SW MGs) in the game, set up before the Fire Group",
    )
    parser.add_argument(
        "--dump", type=Path, default=None, help="also write the cProfile stats to this file"
    )
    parser.add_argument(
        "--fixed-seed",
        action="store_true",
        help="the same game seed and id, so the same dice, in every run (instruction counts)",
    )
    args = parser.parse_args()
    factory = None
    if args.loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with (
        tempfile.TemporaryDirectory(prefix="referee-service-profile-") as tmp,
        asyncio.Runner(loop_factory=factory) as runner,
    ):
        runner.run(
            run(
                args.cycles,
                args.warmup,
                args.cprofile,
                Path(tmp),
                args.sort,
                args.dump,
                args.extra_units,
                args.fixed_seed,
            )
        )


if __name__ == "__main__":
    main()
