"""Profile the bot process while it answers sequential ``/asl fire`` (or ``/ping`` on the floor).

    .venv/bin/python -m bench.profile [--floor] [--actions 400] [--channels N] [--out DIR]
        [--cprofile]

The bot runs under pyinstrument (``python -m pyinstrument -m bot run``) against the fake Discord;
the report is written when the bot exits on SIGTERM: ``DIR/bot-fire.txt`` (the call tree, time
spent awaiting included) and ``DIR/bot-fire-flat.txt`` (self time per function, the CPU view).
With ``--channels N`` (N > 1) the bot is profiled under load instead: N channels in flight, each
sending the fire cycle ``--actions`` times (as the throughput part of ``bench.run``).

With ``--cprofile`` the bot runs under cProfile instead (``bench/cprofiled.py``), counting the
CPU time of the event loop's thread, and the heaviest functions are printed with their calls per
interaction (``DIR/bot-fire.prof`` keeps the whole profile): call counts do not depend on the
machine's load, so they compare well between two checkouts on a busy machine. The cProfile
starts after the set-up and ``WARMUP`` rounds (the bot's start-up, imports and first calls
are not counted).
"""

from __future__ import annotations

import argparse
import asyncio
import pstats
import signal
import tempfile
from pathlib import Path

from bench.run import (
    ASL_FIRE,
    ASL_RESET,
    ASL_SETUP,
    FLOOR,
    REFEREE_RUN,
    act,
    add_channels,
    roundtrip,
    throughput,
)
from tests.e2e.conftest import BotLauncher
from tests.fake_discord import FakeDiscord

WARMUP = 10
"""Rounds (fire cycles, or ``/ping``s) played before the profile starts."""
FLOOR_MODULE = ["-m", "bench.floor_bot"]
"""The floor bot run as a module (``bench.cprofiled`` runs modules)."""


async def profile(
    floor: bool, actions: int, out: Path, channels: int = 1, cprofile: bool = False
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    name = "floor-ping" if floor else "bot-fire" if channels <= 1 else f"bot-fire-{channels}ch"
    with tempfile.TemporaryDirectory(prefix="referee-profile-") as tmp:
        for flat in (False,) if cprofile else (False, True):
            if cprofile:
                report = out / f"{name}.prof"
                bot_argv = FLOOR_MODULE if floor else REFEREE_RUN
                argv = ["-m", "bench.cprofiled", str(report), "--from-usr1", *bot_argv]
            else:
                report = out / f"{name}{'-flat' if flat else ''}.txt"
                options = ["-p", "flat=true", "-p", "time=percent_of_total"] if flat else []
                argv = [
                    "-m", "pyinstrument", "-r", "text", *options, "-o", str(report),
                    *(FLOOR if floor else REFEREE_RUN),
                ]  # fmt: skip
            async with FakeDiscord() as discord:
                tables = [f"t{i}" for i in range(channels)]
                if channels > 1:
                    add_channels(discord, tables)
                workdir = Path(tmp) / f"{name}-{flat}"
                workdir.mkdir()
                bot = await BotLauncher(discord, workdir).start_ready(argv)
                try:
                    await drive(discord, floor, actions, channels, tables, bot.process)
                finally:
                    await bot.stop(timeout=120)
            print(f"wrote {report}")
            if cprofile:
                cycle = len(ASL_RESET) + 1
                interactions = (
                    actions if floor else actions * cycle * (channels if channels > 1 else 1)
                )
                summary(report, interactions)


async def drive(
    discord: FakeDiscord,
    floor: bool,
    actions: int,
    channels: int,
    tables: list[str],
    process: asyncio.subprocess.Process | None = None,
) -> None:
    """Send the profiled interactions: ``/ping``s, or the fire cycle sequentially or on
    ``channels`` channels at once. The set-up and ``WARMUP`` rounds go first; then ``process``
    (the bot under ``bench.cprofiled --from-usr1``) is told to start its profile."""

    def start_profile() -> None:
        if process is not None:
            process.send_signal(signal.SIGUSR1)

    cycle = [*ASL_RESET, ASL_FIRE]
    if floor:
        for _ in range(WARMUP):
            await roundtrip(discord, (["ping"], {}), channel="table-1")
        start_profile()
        for _ in range(actions):
            await roundtrip(discord, (["ping"], {}), channel="table-1")
    elif channels > 1:

        async def setup(table: str) -> None:
            for command in ASL_SETUP:
                await act(discord, command, table)

        await asyncio.gather(*(setup(table) for table in tables))
        await throughput(discord, tables, len(cycle), cycle)
        start_profile()
        await throughput(discord, tables, actions * len(cycle), cycle)
    else:
        for command in ASL_SETUP:
            await act(discord, command, "table-1")
        for _ in range(WARMUP):
            for command in cycle:
                await act(discord, command, "table-1")
        start_profile()
        for _ in range(actions):
            for command in ASL_RESET:
                await act(discord, command, "table-1")
            await act(discord, ASL_FIRE, "table-1")


def summary(report: Path, interactions: int) -> None:
    """The profile's heaviest functions by own CPU time, and by cumulative time among the
    bot's own code, with the calls per interaction."""
    stats = pstats.Stats(str(report))
    total = stats.total_tt  # type: ignore[attr-defined]
    print(
        f"{interactions} interactions: {1000 * total / interactions:.3f} ms of the event loop's "
        f"thread's CPU each (under cProfile), {stats.total_calls / interactions:.0f} calls each"  # type: ignore[attr-defined]
    )
    stats.sort_stats("tottime").print_stats(40)
    stats.sort_stats("cumulative").print_stats(r"/(bot|cogs|rules_core)/", 40)
    stats.sort_stats("cumulative").print_stats(r"site-packages/(discord|aiohttp)/", 30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--floor", action="store_true", help="profile the floor bot's /ping")
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--channels", type=int, default=1, help="channels in flight (load)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/referee-profile"))
    parser.add_argument(
        "--cprofile",
        action="store_true",
        help="cProfile (CPU time of the loop's thread, call counts) instead of pyinstrument",
    )
    args = parser.parse_args()
    asyncio.run(profile(args.floor, args.actions, args.out, args.channels, args.cprofile))


if __name__ == "__main__":
    main()
