"""Profile the bot process while it answers sequential ``/asl fire`` (or ``/ping`` on the floor).

    .venv/bin/python -m bench.profile [--floor] [--actions 400] [--channels N] [--out DIR]

The bot runs under pyinstrument (``python -m pyinstrument -m bot run``) against the fake Discord;
the report is written when the bot exits on SIGTERM: ``DIR/bot-fire.txt`` (the call tree, time
spent awaiting included) and ``DIR/bot-fire-flat.txt`` (self time per function, the CPU view).
With ``--channels N`` (N > 1) the bot is profiled under load instead: N channels in flight, each
sending the fire cycle ``--actions`` times (as the throughput part of ``bench.run``).
"""

from __future__ import annotations

import argparse
import asyncio
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


async def profile(floor: bool, actions: int, out: Path, channels: int = 1) -> None:
    out.mkdir(parents=True, exist_ok=True)
    name = "floor-ping" if floor else "bot-fire" if channels <= 1 else f"bot-fire-{channels}ch"
    with tempfile.TemporaryDirectory(prefix="referee-profile-") as tmp:
        for flat in (False, True):
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
                    if floor:
                        for _ in range(actions):
                            await roundtrip(discord, (["ping"], {}), channel="table-1")
                    elif channels > 1:

                        async def setup(table: str) -> None:
                            for command in ASL_SETUP:
                                await act(discord, command, table)

                        await asyncio.gather(*(setup(table) for table in tables))
                        cycle = [*ASL_RESET, ASL_FIRE]
                        await throughput(discord, tables, actions * len(cycle), cycle)
                    else:
                        for command in ASL_SETUP:
                            await act(discord, command, "table-1")
                        for _ in range(actions):
                            for command in ASL_RESET:
                                await act(discord, command, "table-1")
                            await act(discord, ASL_FIRE, "table-1")
                finally:
                    await bot.stop(timeout=120)
            print(f"wrote {report}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--floor", action="store_true", help="profile the floor bot's /ping")
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--channels", type=int, default=1, help="channels in flight (load)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/referee-profile"))
    args = parser.parse_args()
    asyncio.run(profile(args.floor, args.actions, args.out, args.channels))


if __name__ == "__main__":
    main()
