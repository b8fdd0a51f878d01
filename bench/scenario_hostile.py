"""What a hostile scenario costs the bot to refuse: 64 KiB of ``x;``, which is 32,768 commands.

    .venv/bin/python -m bench.scenario_hostile

The CPU time (``time.process_time``) of reading the text as ``/game setup`` reads it
(:func:`bot.commands.scenario.read_scenario`, for ASL), three times; the refusal is one error,
"it holds 32768 commands; at most 500.", given before any command is read.
"""

from __future__ import annotations

import time

from bot.commands.registry import build_registry
from bot.commands.scenario import read_scenario
from rules_core.system import get_system

TEXT = "x;" * 32 * 1024
"""The largest file a command takes (64 KiB), as many commands as it can hold."""


def main() -> None:
    registry = build_registry({"asl": get_system("asl")})
    for _ in range(3):
        start = time.process_time()
        _, errors = read_scenario(TEXT, "asl", registry)
        spent = time.process_time() - start
        print(f"{len(TEXT)} bytes: {len(errors)} error(s), {spent * 1000:.0f} ms CPU")


if __name__ == "__main__":
    main()
