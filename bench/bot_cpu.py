"""The bot's CPU per action through the fake Discord, for comparing settings or checkouts.

    .venv/bin/python -m bench.bot_cpu [--cycles 60] [--channels 100 --per-channel 14] \\
        [--env NAME=VALUE ...] [--label TEXT] [--pin]

One run: the fake Discord and the real bot (``python -m bot run``, as ``bench.run`` starts it),
the benchmark's ASL game set up, 10 fire cycles to warm up, then ``--cycles`` fire cycles (6
resets + 1 ``/asl fire``) one after the other, and then every channel of ``--channels`` sending
``--per-channel`` actions of the same cycle at once. It prints the CPU the bot process spent per
action (all its threads, from /proc) and the harness's (this process: the fake Discord and the
clients), sequential and under load, and the load's rate. CPU time depends much less on the
machine's load than latency does; still, compare runs made one after the other (interleaved
pairs), and give the load average (``uptime``). ``--pin`` puts the harness on one CPU and the
bot on the others, as ``bench.run --pin`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from bench.run import (
    ASL_FIRE,
    ASL_RESET,
    ASL_SETUP,
    REFEREE_RUN,
    act,
    add_channels,
    cpu_seconds,
    pin,
    pinned_cpus,
)
from tests.e2e.conftest import BotLauncher
from tests.fake_discord import FakeDiscord


async def measure(
    cycles: int,
    channels: int,
    per_channel: int,
    env: dict[str, str],
    pinned: tuple[set[int], set[int]] | None = None,
) -> str:
    cycle = [*ASL_RESET, ASL_FIRE]
    if pinned is not None:
        pin(os.getpid(), pinned[0])
    with tempfile.TemporaryDirectory(prefix="referee-bot-cpu-") as tmp:
        async with FakeDiscord() as discord:
            tables = [f"t{i}" for i in range(channels)]
            add_channels(discord, tables)
            env = {"REFEREE_DB": str(Path(tmp) / "referee.db"), **env}
            bot = await BotLauncher(discord, Path(tmp)).start_ready(REFEREE_RUN, **env)
            if pinned is not None:
                pin(bot.process.pid, pinned[1])
            try:
                for command in ASL_SETUP:
                    await act(discord, command, "table-1")
                for _ in range(10):
                    for command in cycle:
                        await act(discord, command, "table-1")
                pid = bot.process.pid
                bot_cpu, harness = cpu_seconds(pid), time.process_time()
                for _ in range(cycles):
                    for command in cycle:
                        await act(discord, command, "table-1")
                actions = cycles * len(cycle)
                sequential = (
                    f"sequential: bot {1000 * (cpu_seconds(pid) - bot_cpu) / actions:.3f} ms, "
                    f"harness {1000 * (time.process_time() - harness) / actions:.3f} ms CPU "
                    f"per action ({actions} actions)"
                )
                if not channels:
                    return sequential

                async def setup(table: str) -> None:
                    for command in ASL_SETUP:
                        await act(discord, command, table)

                await asyncio.gather(*(setup(table) for table in tables))

                async def player(table: str) -> None:
                    for i in range(per_channel):
                        await act(discord, cycle[i % len(cycle)], table)

                bot_cpu, harness = cpu_seconds(pid), time.process_time()
                started = time.perf_counter()
                await asyncio.gather(*(player(table) for table in tables))
                elapsed = time.perf_counter() - started
                actions = channels * per_channel
                return (
                    f"{sequential}; {channels} channels: bot "
                    f"{1000 * (cpu_seconds(pid) - bot_cpu) / actions:.3f} ms, harness "
                    f"{1000 * (time.process_time() - harness) / actions:.3f} ms CPU per action, "
                    f"{actions / elapsed:.0f} actions/s"
                )
            finally:
                await bot.stop(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=60, help="sequential fire cycles")
    parser.add_argument("--channels", type=int, default=100, help="channels in flight (0: none)")
    parser.add_argument("--per-channel", type=int, default=14, help="actions per channel")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the bot")
    parser.add_argument("--label", default="", help="printed before the figures")
    parser.add_argument("--pin", action="store_true", help="the harness and the bot on own CPUs")
    args = parser.parse_args()
    env = dict(item.split("=", 1) for item in args.env)
    pinned = pinned_cpus() if args.pin else None
    figures = asyncio.run(measure(args.cycles, args.channels, args.per_channel, env, pinned))
    load = os.getloadavg()[0]
    label = args.label or " ".join(args.env) or "defaults"
    print(f"{label}{' (pinned)' if pinned else ''}: {figures} (load {load:.1f})")


if __name__ == "__main__":
    main()
