"""The benchmark of issue 8: the referee bot against the floor of discord.py, in one run.

    .venv/bin/python -m bench.run [--quick] [--profile DIR] [--results FILE] [--pin]

Both bots run as subprocesses against the project's own fake Discord (``tests/fake_discord``),
started exactly as the e2e tests start them (``tests/e2e/conftest.py``). Latency is measured from
just before the interaction is dispatched on the gateway to the moment the bot's answer (its
callback, or the follow-up after a defer) reaches the fake Discord. Every logged action is a
durable commit (WAL, ``synchronous=FULL``) before the bot answers.

Sections: the floor (``bench/floor_bot.py`` answering ``/ping``); sequential latency of
``/asl fire`` (two MGs and two squads as a Fire Group at FB level 4), ``/ocs attack``,
``/cwb fire``, ``/roll`` and ``preview:true``; throughput with 100 channels in flight, then a
check that no update was lost; latency at 10 against 100,000 log entries; resident memory with
10,000 stored games; every preview's odds computed in-process; the console on a 1,000-action
scripted game; the machine and its fsync cost.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from bench.seed import seed
from bot.models import Actor
from tests.e2e.conftest import ROOT, BotLauncher, BotProcess
from tests.fake_discord import FakeDiscord, Reply
from tests.fake_discord import payloads as p

TIMEOUT = 30.0
REFEREE_RUN = ["-m", "bot", "run"]
FLOOR = ["bench/floor_bot.py"]

Command = tuple[list[str], dict[str, Any]]

ASL_FORCES: list[Command] = [
    (["asl", "unit", "add"], {"name": "A", "side": "Axis", "kind": "squad"}),
    (["asl", "unit", "add"], {"name": "B", "side": "Axis", "kind": "squad"}),
    (["asl", "weapon", "add"],
     {"name": "HMG", "side": "Axis", "kind": "sw_mg", "rof": 3, "owner": "A"}),
    (["asl", "weapon", "add"],
     {"name": "LMG", "side": "Axis", "kind": "sw_mg", "rof": 1, "owner": "B"}),
]  # fmt: skip
"""The Fire Group of the benchmark: two squads, an HMG and an LMG of the Axis."""
_AFRESH = {"update": True, "broken": False, "pinned": False, "berserk": False}
_MG_AFRESH = {"update": True, "correction": True, "status": "ok", "marker": "none",
              "low-ammo": False}  # fmt: skip
ASL_RESET: list[Command] = [
    (["asl", "phase"], {"phase": "rph", "side": "Axis", "correction": True}),
    (["asl", "phase"], {}),
    *[(path, {**options, **(_AFRESH if path[1] == "unit" else _MG_AFRESH)})
      for path, options in ASL_FORCES],
]  # fmt: skip
"""Puts the Fire Group back as set up, as the rules allow since the Player Turn is refereed: the
game's creator (a referee without a seat) begins a new Axis Player Turn (a correction to its
Rally Phase, so no unit or MG carries this Player Turn's fire, A3/A9.2), goes on to the Prep
Fire Phase, and resets what fire may have done to units and MGs (broken, pinned, malfunctioned,
Low Ammo, fire markers; a referee's ``correction:true`` for the MGs, A9.7)."""
ASL_FIRE: Command = (["asl", "fire"], {"weapons": "HMG, LMG", "units": "A, B"})
ASL_SETUP: list[Command] = [  # the creator holds no seat: a referee who acts for every side
    (["game", "new"], {"system": "asl", "title": "bench"}),
    (["asl", "level"], {"side": "Axis", "level": 4}),
    *ASL_FORCES,
    (["asl", "phase"], {"phase": "pfph", "side": "Axis"}),
]
OCS_SETUP: list[Command] = [
    (["game", "new"], {"system": "ocs", "sides": "Axis,Soviet"}),
    (["game", "seat"], {"side": "Axis"}),
    (["ocs", "dump", "add"], {"side": "Axis", "hex": "12.05", "amount": "100000 SP"}),
    (["ocs", "unit", "add"], {"name": "1/5 Pz", "side": "Axis", "steps": 2, "re": "1", "ar": 4,
                              "hex": "12.05"}),
    (["ocs", "unit", "add"], {"name": "2/5 Pz", "side": "Axis", "steps": 2, "re": "1", "ar": 4,
                              "hex": "12.05"}),
]  # fmt: skip
OCS_ATTACK: Command = (["ocs", "attack"], {"attackers": "1/5 Pz, 2/5 Pz", "dump": "12.05"})
CWB_SETUP: list[Command] = [  # the creator holds no seat: /cwb params concerns both sides
    (["game", "new"], {"system": "cwb"}),
    (["cwb", "params"], {"ammo-loss": 30}),
    (["cwb", "unit", "add"], {"name": "1st Minnesota", "side": "Union", "men": 262, "hex": "5,5"}),
]
CWB_RESET: Command = (["cwb", "unit", "set"], {"name": "1st Minnesota", "ammo": "normal"})
CWB_FIRE: Command = (["cwb", "fire"], {"unit": "1st Minnesota", "mode": "defensive"})


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``, in milliseconds."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))
    return ordered[index] * 1000


class Failed(AssertionError):
    """The bot refused or failed an action the benchmark expected to succeed."""


async def roundtrip(
    discord: FakeDiscord, command: Command, *, channel: str, user: str = "alice"
) -> tuple[float, Reply]:
    """Send one slash command; the seconds until its answer arrived, and the answer."""
    path, options = command
    started = time.perf_counter()
    sent = await discord.slash(path, options, user=user, channel=channel)
    reply = await sent.next_reply(TIMEOUT)
    if reply.type == 5:  # deferred: the answer is the follow-up
        reply = await sent.next_reply(TIMEOUT)
    elapsed = time.perf_counter() - started
    return elapsed, reply


def logged(reply: Reply, what: str) -> int:
    """The log sequence number of a posted result (``#N …``); fails on a refusal."""
    title = reply.embeds[0]["title"] if reply.embeds else ""
    if not title.startswith("#"):
        raise Failed(f"{what}: expected a logged result, got {reply.content or reply.data}")
    return int(title[1:].split(" ")[0])


async def act(discord: FakeDiscord, command: Command, channel: str, user: str = "alice") -> float:
    elapsed, reply = await roundtrip(discord, command, channel=channel, user=user)
    logged(reply, "/" + " ".join(command[0]))
    return elapsed


def add_channels(discord: FakeDiscord, names: list[str], ids: list[int] | None = None) -> None:
    """More text channels in the fake guild (the fake's ``channels`` mapping is public)."""
    start = len(discord.channels)
    for i, name in enumerate(names):
        channel_id = str(ids[i]) if ids is not None else p.snowflake()
        discord.channels[name] = p.text_channel(channel_id, discord.guild_id, name, start + i)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU spent by the bot process and by this process (the fake Discord and the clients)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.bot = cpu_seconds(pid)
        self.harness = time.process_time()

    def per_action(self, actions: int) -> str:
        bot = (cpu_seconds(self.pid) - self.bot) / actions * 1000
        harness = (time.process_time() - self.harness) / actions * 1000
        return f"bot {bot:.2f} ms, harness {harness:.2f} ms CPU per action"


def pin(pid: int, cpus: set[int]) -> None:
    """Pin every thread of process ``pid`` to ``cpus``; the threads it starts later inherit it."""
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), cpus)


def pinned_cpus() -> tuple[set[int], set[int]]:
    """``--pin``: the harness's CPU (the first this process may use) and the bots' (the rest).

    Real Discord does the harness's work (the gateway, the REST routes, the clients) on its own
    machines; pinned, the harness and the bot under test no longer take each other's core, so
    the bot's own ceiling shows. The floor is pinned the same way, and the figures are to be
    reported beside an unpinned run's, never instead of them (docs/PERFORMANCE.md). The
    in-process parts (previews, the console) run on every CPU again."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("--pin needs at least two CPUs")
    return {cpus[0]}, set(cpus[1:])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


# --- the machine ---------------------------------------------------------------------------


def machine(directory: Path) -> dict[str, str]:
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    fsyncs = []
    probe = directory / "fsync-probe"
    with probe.open("wb") as out:
        for _ in range(200):
            out.write(os.urandom(4096))
            out.flush()
            started = time.perf_counter()
            os.fsync(out.fileno())
            fsyncs.append(time.perf_counter() - started)
    probe.unlink()
    return {
        "CPU": cpu,
        "cores": str(len(os.sched_getaffinity(0))),
        "Python": platform.python_version(),
        "SQLite": sqlite3.sqlite_version,
        "discord.py": _version("discord.py"),
        "orjson (discord.py uses it when installed)": _optional("orjson"),
        "OS": platform.platform(),
        "fsync (4 KiB append, 200 runs)": f"p50 {pct(fsyncs, 0.5):.2f} ms, "
        f"p99 {pct(fsyncs, 0.99):.2f} ms",
        "_fsync_p50": f"{pct(fsyncs, 0.5):.3f}",
    }


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def _optional(name: str) -> str:
    from importlib.metadata import PackageNotFoundError

    try:
        return _version(name)
    except PackageNotFoundError:
        return "not installed"


# --- measurements ----------------------------------------------------------------------------


def settle_harness() -> None:
    """Before a measured section: what the harness (this process: the fake Discord and the
    clients) holds so far is moved out of its garbage collector's sight (``gc.freeze``), the
    same for the floor's sections and ours. The fake Discord keeps every interaction and answer;
    without this its collector scanned them all, more with every section (a full collection of
    ~220 ms and eleven middle ones of ~5 ms during 2,800 sequential actions of ours): pauses
    of the harness, counted in whichever bot's latency they fell on, most often the one measured
    later (ours)."""
    gc.collect()
    gc.freeze()


async def sequential(
    samples: int, once: Callable[[int], Awaitable[float]], warmup: int = 20
) -> list[float]:
    """``samples`` latencies of ``once`` after ``warmup`` calls. The harness's own garbage
    collector is settled first and then kept off until the samples are taken (the floor's
    sections and ours alike): without this, its collections of what the section itself kept
    (the fake Discord keeps every interaction and answer) paused the harness mid-measurement,
    eleven middle collections of 3-7 ms and a full one of ~70 ms (load ~2.5) during 2,800 of
    our sequential actions, each counted in the latency of whichever action it fell on. A
    section's few thousand interactions are collected when it ends."""
    for i in range(warmup):
        await once(-1 - i)
    settle_harness()
    gc.disable()
    try:
        return [await once(i) for i in range(samples)]
    finally:
        gc.enable()


async def throughput(
    discord: FakeDiscord, channels: list[str], per_channel: int, cycle: list[Command]
) -> tuple[float, int]:
    """Every channel sends ``per_channel`` actions (``cycle`` over and over), all channels at
    once, each channel one action after the other (a channel's actions are serialized anyway).
    Returns (actions per second, actions)."""

    async def player(channel: str) -> None:
        for i in range(per_channel):
            await act(discord, cycle[i % len(cycle)], channel)

    settle_harness()
    started = time.perf_counter()
    await asyncio.gather(*(player(channel) for channel in channels))
    elapsed = time.perf_counter() - started
    total = per_channel * len(channels)
    return total / elapsed, total


async def floor_throughput(discord: FakeDiscord, channels: list[str], per_channel: int) -> float:
    async def player(channel: str) -> None:
        for _ in range(per_channel):
            _, reply = await roundtrip(discord, (["ping"], {}), channel=channel)
            assert reply.content == "Pong", reply.data

    settle_harness()
    started = time.perf_counter()
    await asyncio.gather(*(player(channel) for channel in channels))
    return per_channel * len(channels) / (time.perf_counter() - started)


def check_logs(database: Path, guild_id: int, channel_ids: Mapping[str, int], expected: int) -> str:
    """No lost update: each channel's game log holds exactly ``expected`` entries, numbered
    1…N, each linked to the previous one's hash."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        bad = []
        for name, channel_id in channel_ids.items():
            (game_id,) = db.execute(
                "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND status = 'active'",
                (guild_id, channel_id),
            ).fetchone()
            rows = db.execute(
                "SELECT seq, body, hash FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
            seqs = [row[0] for row in rows]
            linked = all(
                json.loads(rows[i][1])["prev"] == rows[i - 1][2] for i in range(1, len(rows))
            )
            head = db.execute("SELECT head_seq FROM games WHERE id = ?", (game_id,)).fetchone()
            if seqs != list(range(1, expected + 1)) or not linked or head[0] != expected:
                bad.append(name)
        if bad:
            raise Failed(f"lost or broken updates in {bad}")
        return f"{len(channel_ids)} channels × {expected} entries, consecutive and hash-linked"
    finally:
        db.close()


def preview_times(samples: int) -> list[tuple[str, float, float]]:
    """(command, median ms, worst ms) of ``SYSTEM.odds`` for every rolling command of every
    system, and of ``/roll``'s odds, in-process."""
    from bot.service.core import Core
    from bot.table import commands as gc
    from bot.table.roll import roll_odds
    from rules_core.asl import SYSTEM as ASL
    from rules_core.asl.actions import (
        AddUnit,
        AddWeapon,
        Check,
        Fire,
        Repair,
        SetLevel,
        SetPhase,
        ToHit,
    )
    from rules_core.asl.examples import build_state, fb16_fire_group
    from tests.ocs.perf_previews import cases

    group = fb16_fire_group()
    gun = build_state(
        [
            SetLevel(side="Axis", level=4),
            AddUnit(name="Crew", side="Axis", kind="crew"),
            AddWeapon(name="PaK 40", side="Axis", kind="gun", rof=1, owner="Crew",
                      special_ammo=("APCR:5",)),
            AddWeapon(name="MMG", side="Axis", kind="sw_mg", rof=2, owner="Crew",
                      status="malfunctioned", repair=3),
            AddUnit(name="Squad", side="Axis", kind="squad", smoke=3),
            SetPhase(phase="pfph", side="Axis"),
        ]
    )  # fmt: skip
    rally = gun.model_copy(update={"phase": "rph"})
    close_combat = gun.model_copy(update={"phase": "ccph"})  # C13.7: an ATMM in CC
    moving = gun.model_copy(update={"phase": "mph"})  # A24.1: SMOKE grenades in its own MPh
    measured: dict[str, tuple[Any, Any, Any]] = {
        "asl fire (HMG+LMG+A+B+9-1, FB 4)": (
            ASL,
            group,
            Fire(weapons=("HMG", "LMG"), units=("A", "B"), leader="9-1"),
        ),
        "asl fire (HMG+LMG+A+B, FB 4)": (
            ASL,
            group,
            Fire(weapons=("HMG", "LMG"), units=("A", "B")),
        ),
        "asl tohit (PaK 40 APCR, FB 4)": (ASL, gun, ToHit(gun="PaK 40", special_ammo="APCR")),
        "asl repair (MMG, FB 4)": (ASL, rally, Repair(weapon="MMG")),
        "asl check pf": (ASL, gun, Check(kind="pf", unit="Squad", year=1944)),
        "asl check atmm": (ASL, close_combat, Check(kind="atmm", unit="Squad")),
        "asl check smoke": (ASL, moving, Check(kind="smoke", unit="Squad")),
        "asl check starshell": (ASL, gun, Check(kind="starshell", unit="Squad", usage=3)),
        **{k: v for k, v in cases().items() if "no dice" not in k},
    }
    results = []
    for name, (system, state, action) in measured.items():
        system.odds(state, action)
        times = []
        for _ in range(samples):
            started = time.perf_counter()
            system.odds(state, action)
            times.append(time.perf_counter() - started)
        results.append((name, statistics.median(times) * 1000, max(times) * 1000))
    core = Core.__new__(Core)  # /roll's odds read only whether the dice are scripted
    core.script = None
    for dice in ("DR", "dr", "3d6", "2d10+1"):
        command = gc.RollDice(dice=dice)
        times = []
        for _ in range(samples):
            started = time.perf_counter()
            roll_odds(core, command)
            times.append(time.perf_counter() - started)
        results.append((f"roll {dice}", statistics.median(times) * 1000, max(times) * 1000))
    return results


def console_line(command: Command) -> str:
    """A benchmark command as a player types it in the console (``/asl phase phase:rph ...``)."""
    path, options = command

    def value(v: Any) -> str:
        text = str(v).lower() if isinstance(v, bool) else str(v)
        return f'"{text}"' if any(c in text for c in ' ,"') else text

    return " ".join(["/" + " ".join(path), *(f"{k}:{value(v)}" for k, v in options.items())])


def console_game(directory: Path, actions: int) -> dict[str, float]:
    """A scripted ASL game of ``actions`` lines (all logged) through ``referee console``."""
    lines = [console_line(command) for command in ASL_SETUP]
    cycle = [*(console_line(c) for c in (*ASL_RESET, ASL_FIRE)), "/roll dice:DR reason:sniper"]
    i = 0
    while len(lines) < actions:
        lines.append(cycle[i % len(cycle)])
        i += 1
    script = directory / "console-game.txt"
    script.write_text("\n".join(lines) + "\n")
    database = directory / "console.db"
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bot", "console", str(script), "--db", str(database), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.perf_counter() - started
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    ok = sum(1 for r in results if r.get("ok"))
    if done.returncode != 0 or ok != len(lines):
        first: dict[str, Any] = next((r for r in results if not r.get("ok")), {})
        raise Failed(
            f"console: exit {done.returncode}, {ok}/{len(lines)} lines ok; first refusal: "
            f"{json.dumps(first)[:400]}\n{done.stderr}"
        )
    (head,) = sqlite3.connect(database).execute("SELECT max(head_seq) FROM games").fetchone()
    if head != len(lines):
        raise Failed(f"console: {head} entries logged for {len(lines)} lines")
    startup = subprocess.run(
        [
            sys.executable,
            "-c",
            "import bot.console, rules_core.asl, rules_core.ocs, rules_core.cwb",
        ],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    del startup
    return {"actions": len(lines), "wall": wall, "rate": len(lines) / wall}


# --- the run ---------------------------------------------------------------------------------


class Run:
    def __init__(
        self,
        quick: bool,
        profile: Path | None,
        live_games: int | None = None,
        event_loop: str | None = None,
        pinned: tuple[set[int], set[int]] | None = None,
    ) -> None:
        self.quick = quick
        self.profile = profile
        self.live_games = live_games
        self.event_loop = event_loop
        self.pinned = pinned
        """``--pin``: (the harness's CPUs, the bots' CPUs); None: the scheduler's choice."""
        self.rows: list[tuple[str, str, str, str]] = []  # what, figure, target, met
        self.notes: dict[str, Any] = {}

    def row(self, what: str, figure: str, target: str = "", met: bool | None = None) -> None:
        mark = "" if met is None else ("yes" if met else "**no**")
        self.rows.append((what, figure, target, mark))
        print(f"{what:58s} {figure:42s} {target:24s} {mark}", flush=True)

    async def start(
        self, discord: FakeDiscord, workdir: Path, argv: list[str], name: str, **env: str
    ) -> BotProcess:
        workdir.mkdir(parents=True, exist_ok=True)
        launcher = BotLauncher(discord, workdir)
        if self.profile is not None and argv == REFEREE_RUN:
            self.profile.mkdir(parents=True, exist_ok=True)
            out = self.profile / f"{name}.pyinstrument.txt"
            argv = ["-m", "pyinstrument", "-r", "text", "--show-all", "-o", str(out), *argv]
        bot = await launcher.start_ready(argv, **env)
        if self.pinned is not None:
            pin(bot.process.pid, self.pinned[1])
        return bot

    async def main(self) -> None:
        n_seq = 100 if self.quick else 400
        per_channel = 20 if self.quick else 100
        big_entries = 10_000 if self.quick else 100_000
        stored_games = 1_000 if self.quick else 10_000
        with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
            work = Path(tmp)
            self.notes["machine"] = machine(work)  # its core count before the pinning
            if self.pinned is not None:
                pin(os.getpid(), self.pinned[0])
            harness, bots = self.pinned or (set(), set())
            self.notes["machine"]["pinned (--pin)"] = (
                f"the harness on CPU {sorted(harness)}, the floor and the bot on CPU {sorted(bots)}"
                if self.pinned is not None
                else "no (the scheduler's choice)"
            )
            for key, value in self.notes["machine"].items():
                if not key.startswith("_"):
                    print(f"{key}: {value}")

            # -- the floor, alone; it stays up to be measured again beside our bot -----------
            async with FakeDiscord() as floor_discord:
                add_channels(floor_discord, [f"c{i}" for i in range(100)])
                floor = await self.start(floor_discord, work / "floor", FLOOR, "floor")
                try:

                    async def ping(_: int) -> float:
                        elapsed, reply = await roundtrip(
                            floor_discord, (["ping"], {}), channel="table-1"
                        )
                        assert reply.content == "Pong"
                        return elapsed

                    await sequential(0, ping)  # warm up
                    meter = CpuMeter(floor.process.pid)
                    floor_seq = await sequential(n_seq, ping, warmup=0)
                    floor_seq_cpu = meter.per_action(n_seq)
                    meter = CpuMeter(floor.process.pid)
                    floor_rate = await floor_throughput(
                        floor_discord, [f"c{i}" for i in range(100)], per_channel
                    )
                    floor_rate_cpu = meter.per_action(100 * per_channel)
                    floor_rss = rss_mb(floor.process.pid)
                    self.row(
                        "floor: /ping (bench/floor_bot.py), sequential, alone",
                        f"p50 {pct(floor_seq, 0.5):.2f} ms, p99 {pct(floor_seq, 0.99):.2f} ms",
                    )
                    self.row("  CPU, sequential", floor_seq_cpu)
                    self.row("floor: /ping, 100 channels in flight", f"{floor_rate:.0f} answers/s")
                    self.row("  CPU, 100 channels", floor_rate_cpu)
                    self.row("floor: resident memory", f"{floor_rss:.0f} MB")
                    await self.ours_all(work, n_seq, per_channel, big_entries, stored_games,
                                        ping, floor_rate, floor)  # fmt: skip
                finally:
                    await floor.stop()

            if self.pinned is not None:  # the in-process parts on every CPU, as unpinned
                pin(os.getpid(), self.pinned[0] | self.pinned[1])

            # -- previews in-process, the console ----------------------------------------------
            worst_all = 0.0
            for name, median, worst in preview_times(50 if self.quick else 200):
                worst_all = max(worst_all, median)
                self.row(
                    f"preview odds in-process: {name}",
                    f"median {median:.2f} ms, worst {worst:.2f} ms",
                    "≤ 5 ms",
                    median <= 5,
                )
            console = console_game(work, 1_000)
            self.row(
                "console: 1,000-action scripted ASL game, end to end",
                f"{console['wall']:.1f} s wall, {console['rate']:.0f} actions/s",
            )

    async def ours_all(
        self,
        work: Path,
        n_seq: int,
        per_channel: int,
        big_entries: int,
        stored_games: int,
        ping: Callable[[int], Awaitable[float]],
        floor_rate: float,
        floor: BotProcess,
    ) -> None:
        (work / "bot").mkdir(exist_ok=True)
        database = work / "bot" / "referee.db"
        async with FakeDiscord() as discord:
            alice = discord.people["alice"]
            actor = Actor(user_id=int(alice.id), name=alice.name)
            big_id, small_id = int(p.snowflake()), int(p.snowflake())
            stored_ids = [int(p.snowflake()) for _ in range(stored_games)]
            started = time.perf_counter()
            await seed(
                database,
                guild_id=int(discord.guild_id),
                actor=actor,
                big=(big_id, big_entries),
                many=stored_ids,
            )
            seeded = time.perf_counter() - started
            print(f"seeded {big_entries} + {stored_games} games in {seeded:.0f} s", flush=True)
            tables = [f"t{i}" for i in range(100)]
            add_channels(discord, tables)
            add_channels(discord, ["big", "small"], [big_id, small_id])
            env = {"REFEREE_DB": str(database)}
            if self.live_games is not None:
                env["REFEREE_LIVE_GAMES"] = str(self.live_games)
            if self.event_loop is not None:
                env["REFEREE_EVENT_LOOP"] = self.event_loop
            bot = await self.start(discord, work / "bot", REFEREE_RUN, "bot", **env)
            try:
                idle_rss = rss_mb(bot.process.pid)
                await self.ours(discord, bot, tables, n_seq, per_channel, ping, floor_rate)
                channel_ids = {t: int(discord.channels[t]["id"]) for t in tables}
                expected = len(ASL_SETUP) + per_channel
                self.row(
                    "no lost update after the 100-channel run",
                    check_logs(database, int(discord.guild_id), channel_ids, expected),
                    "every entry, in order",
                    True,
                )
                await self.history(discord, big_entries, n_seq)
                await self.memory(discord, bot, stored_ids, idle_rss, stored_games)
            finally:
                code = await bot.stop(timeout=120)
                if code != 0 or "Traceback" in bot.output():
                    print(bot.output()[-5000:])
                    raise Failed(f"the bot exited with {code} or logged a traceback")

    async def ours(
        self,
        discord: FakeDiscord,
        bot: BotProcess,
        tables: list[str],
        n_seq: int,
        per_channel: int,
        ping: Callable[[int], Awaitable[float]],
        floor_rate: float,
    ) -> None:
        """Sequential latency, each of our actions interleaved with a floor /ping (the floor
        bot is up on its own fake Discord), so that both see the same machine at the same time;
        then throughput."""
        pings: list[float] = []
        for command in ASL_SETUP:
            await act(discord, command, "table-1")
        for command in OCS_SETUP:
            await act(discord, command, "general")
        for command in CWB_SETUP:
            await act(discord, command, "game-thread")

        async def fire(i: int) -> float:
            for command in ASL_RESET:
                await act(discord, command, "table-1")
            if i >= 0:
                pings.append(await ping(i))
            return await act(discord, ASL_FIRE, "table-1")

        async def preview(_: int) -> float:
            for command in ASL_RESET:
                await act(discord, command, "table-1")
            command = (ASL_FIRE[0], {**ASL_FIRE[1], "preview": True})
            elapsed, reply = await roundtrip(discord, command, channel="table-1")
            assert reply.ephemeral and "Odds of" in json.dumps(reply.data), reply.data
            return elapsed

        async def attack(_: int) -> float:
            return await act(discord, OCS_ATTACK, "general")

        async def cwb(_: int) -> float:
            await act(discord, CWB_RESET, "game-thread")
            return await act(discord, CWB_FIRE, "game-thread")

        async def roll(_: int) -> float:
            return await act(discord, (["roll"], {"dice": "DR", "reason": "bench"}), "table-1")

        await sequential(0, fire)  # warm up
        meter = CpuMeter(bot.process.pid)
        fires = await sequential(n_seq, fire, warmup=0)
        # every action of the cycle, the resets with the fire (the floor's pings are not the
        # bot's; the harness's figure includes them)
        fire_cpu = meter.per_action((len(ASL_RESET) + 1) * n_seq)
        a50, a99 = pct(fires, 0.5), pct(fires, 0.99)
        f50, f99 = pct(pings, 0.5), pct(pings, 0.99)
        self.row(
            "floor: /ping, sequential, interleaved with our /asl fire",
            f"p50 {f50:.2f} ms, p99 {f99:.2f} ms",
        )
        self.row(
            "/asl fire (2 MGs + 2 squads, FG, FB 4) + durable commit",
            f"p50 {a50:.2f} ms, p99 {a99:.2f} ms",
        )
        self.row("  ratio to the floor, p50", f"{a50 / f50:.2f}×", "≤ 2×", a50 / f50 <= 2)
        self.row("  ratio to the floor, p99", f"{a99 / f99:.2f}×", "≤ 3×", a99 / f99 <= 3)
        self.row(f"  CPU ({len(ASL_RESET)} resets + 1 fire, averaged)", fire_cpu)
        for name, once, n in (
            ("/asl fire preview:true (odds, nothing logged)", preview, n_seq // 2),
            ("/ocs attack + durable commit", attack, n_seq // 2),
            ("/cwb fire + durable commit", cwb, n_seq // 2),
            ("/roll DR + durable commit", roll, n_seq // 2),
        ):
            times = await sequential(n, once)
            t50, t99 = pct(times, 0.5), pct(times, 0.99)
            self.row(
                name, f"p50 {t50:.2f} ms, p99 {t99:.2f} ms ({t50 / f50:.2f}× / {t99 / f99:.2f}×)"
            )

        await asyncio.gather(*(self.setup(discord, table) for table in tables))
        meter = CpuMeter(bot.process.pid)
        rate, total = await throughput(discord, tables, per_channel, [*ASL_RESET, ASL_FIRE])
        rate_cpu = meter.per_action(total)
        self.row(
            f"throughput, 100 channels in flight "
            f"({total} actions: {len(ASL_RESET)} resets + 1 fire)",
            f"{rate:.0f} actions/s ({rate / floor_rate:.2f}× the floor's {floor_rate:.0f}/s)",
            "≥ 1,000/s",
            rate >= 1000,
        )
        self.row("  CPU, 100 channels", rate_cpu)

    @staticmethod
    async def setup(discord: FakeDiscord, table: str) -> None:
        for command in ASL_SETUP:
            await act(discord, command, table)

    async def history(self, discord: FakeDiscord, big_entries: int, n_seq: int) -> None:
        for command in ASL_SETUP:
            await act(discord, command, "small")
        small: list[float] = []
        big: list[float] = []
        for i in range(n_seq // 2 + 10):  # interleaved, so that drift hits both alike
            for channel, into in (("small", small), ("big", big)):
                for command in ASL_RESET:
                    await act(discord, command, channel)
                elapsed = await act(discord, ASL_FIRE, channel)
                if i >= 10:
                    into.append(elapsed)
        s50, b50 = pct(small, 0.5), pct(big, 0.5)
        self.row(
            f"/asl fire at 10 entries vs at {big_entries:,} entries",
            f"p50 {s50:.2f} vs {b50:.2f} ms (p99 {pct(small, 0.99):.2f} vs {pct(big, 0.99):.2f})",
        )
        self.row("  ratio big / small, p50", f"{b50 / s50:.2f}×", "≤ 1.1×", b50 / s50 <= 1.1)

    async def memory(
        self,
        discord: FakeDiscord,
        bot: BotProcess,
        stored_ids: list[int],
        idle_rss: float,
        stored_games: int,
    ) -> None:
        names = [f"s{i}" for i in range(len(stored_ids))]
        add_channels(discord, names, stored_ids)

        async def player(chunk: list[str]) -> None:
            for name in chunk:
                await act(discord, (["roll"], {"dice": "DR"}), name)

        chunks = [names[i::100] for i in range(100)]
        started = time.perf_counter()
        await asyncio.gather(*(player(chunk) for chunk in chunks))
        elapsed = time.perf_counter() - started
        rss = rss_mb(bot.process.pid)
        self.row(
            f"resident memory, {stored_games:,} stored games, each just played",
            f"{rss:.0f} MB (idle after start: {idle_rss:.0f} MB; "
            f"{len(names) / elapsed:.0f} actions/s over cold games)",
            "≤ 150 MB",
            rss <= 150,
        )


def table(rows: list[tuple[str, str, str, str]]) -> str:
    out = ["| measurement | figure | target | met |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples (a smoke test)")
    parser.add_argument("--profile", type=Path, help="run the bot under pyinstrument, reports here")
    parser.add_argument("--results", type=Path, help="write the table (markdown) to this file")
    parser.add_argument(
        "--live-games", type=int, help="REFEREE_LIVE_GAMES for the bot (default: the bot's)"
    )
    parser.add_argument(
        "--event-loop",
        choices=("asyncio", "uvloop"),
        help="REFEREE_EVENT_LOOP for the bot (default: the bot's)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the harness on one CPU, the floor and the bot on the others (beside an unpinned run)",
    )
    args = parser.parse_args()
    run = Run(
        args.quick,
        args.profile,
        args.live_games,
        args.event_loop,
        pinned_cpus() if args.pin else None,
    )
    started = time.perf_counter()
    asyncio.run(run.main())
    print(f"\nbench done in {time.perf_counter() - started:.0f} s\n")
    text = table(run.rows)
    machine_lines = "\n".join(
        f"- {k}: {v}" for k, v in run.notes["machine"].items() if not k.startswith("_")
    )
    print(text)
    if args.results is not None:
        args.results.write_text(machine_lines + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
