"""The benchmark's own game stays legal: a rules change that refuses its fire cycle fails here,
not only on the day someone runs ``make bench``.

The cycle (a referee's new Axis Player Turn, the Prep Fire Phase, units and MGs put back, the
Fire Group's fire, a /roll) runs through a real ``referee console`` subprocess, and every line
must be logged.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.run import (
    ASL_FIRE,
    ASL_RESET,
    ASL_SETUP,
    CWB_FIRE,
    CWB_RESET,
    CWB_SETUP,
    OCS_ATTACK,
    OCS_SETUP,
    Command,
    console_game,
    console_line,
    pin,
    pinned_cpus,
)
from bot.commands import build_registry
from rules_core.system import SYSTEM_NAMES, get_system

REGISTRY = build_registry({name: get_system(name) for name in SYSTEM_NAMES})
BENCH_COMMANDS = [
    *ASL_SETUP, *ASL_RESET, ASL_FIRE, *OCS_SETUP, OCS_ATTACK, *CWB_SETUP, CWB_RESET, CWB_FIRE
]  # fmt: skip


def test_console_line_is_what_a_player_types() -> None:
    assert console_line((["asl", "phase"], {})) == "/asl phase"
    assert (
        console_line((["asl", "fire"], {"weapons": "HMG, LMG", "correction": True}))
        == '/asl fire weapons:"HMG, LMG" correction:true'
    )


def test_the_benchmark_fire_cycle_is_legal_over_many_player_turns(tmp_path: Path) -> None:
    cycles = 40  # enough Player Turns that MGs malfunction, lose ROF and squads break
    actions = len(ASL_SETUP) + cycles * (len(ASL_RESET) + 2)
    result = console_game(tmp_path, actions)
    assert result["actions"] == actions


@pytest.mark.parametrize("command", BENCH_COMMANDS, ids=console_line)
def test_every_benchmark_option_is_one_discord_declares(command: Command) -> None:
    """The benchmark sends its commands through the fake Discord, which knows Discord's option
    names (``low-ammo``, not ``low_ammo``, which only the console also accepts)."""
    path, options = command
    spec = REGISTRY.find(tuple(path))
    assert set(options) <= {option.name for option in spec.options}


CHILD = """
import os, sys, threading
ids = [threading.get_native_id()]
ready = threading.Event()
def wait():
    ids.append(threading.get_native_id())
    ready.set()
    threading.Event().wait(60)
threading.Thread(target=wait, daemon=True).start()
ready.wait()
print("up", flush=True)
sys.stdin.readline()
ready.clear()
threading.Thread(target=wait, daemon=True).start()  # started after the pinning
ready.wait()
print(" ".join(",".join(map(str, sorted(os.sched_getaffinity(i)))) for i in ids), flush=True)
"""


def test_pin_puts_every_thread_of_a_process_on_the_cpus_given() -> None:
    """``bench.run --pin``: the harness on the first CPU, the bots on the others; every thread
    of a bot's process is pinned, and a thread it starts afterwards inherits it."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        with pytest.raises(SystemExit):
            pinned_cpus()
        return
    harness, bots = pinned_cpus()
    assert harness == {cpus[0]} and bots == set(cpus[1:])
    with subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdin is not None and child.stdout is not None
        assert child.stdout.readline().strip() == "up"
        pin(child.pid, harness)
        child.stdin.write("go\n")
        child.stdin.flush()
        seen = child.stdout.readline().split()
    expected = ",".join(map(str, sorted(harness)))
    assert seen == [expected] * 3, seen
