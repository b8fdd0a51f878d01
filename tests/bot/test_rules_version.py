"""The rules version in the log: every entry records the version of its system's rules it was
ruled under, and ``referee verify`` tells an export played under other rules (an older referee)
from a forged one — without ever calling the former verified.

``tests/bot/exports/asl-wave1-hill-621.jsonl`` is a real export of the first wave of the bot,
written by the commit before "asl: the Player Turn is rules state" (92d9ec9^), with its own
console on a fresh database and real (unscripted) dice::

    /game new system:asl title:"Hill 621"
    /game seat side:Axis
    @bob /game seat side:Allied
    /asl weapon add name:LMG side:Axis kind:sw_mg b:10 rof:1 repair:6
    /asl phase phase:pfph side:Axis
    /asl fire weapons:LMG
    /asl phase phase:rph side:Axis
    /asl repair weapon:LMG
    /roll dice:DR reason:"Sniper check"
    /game end
    /game export

It records no rules version; today's rules give its phase change (#5) another outcome, refuse
its LMG firing with no possessor (#6, A9.1) and its phases going from the Prep Fire Phase back to
the Rally Phase (#7, A3).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

from bot.log import verify_dice
from bot.log.export import export_game
from bot.log.verify import verify_text
from bot.service.game_service import GameService
from bot.storage import Repository
from bot.table import commands as gc
from rules_core.dice import Dice
from rules_core.errors import IllegalAction
from rules_core.outcome import Outcome
from tests.bot.conftest import ALICE, BOB, HERE, end_game, start_game
from tests.bot.test_verify_forgery import of_kind, reseal
from tests.bot.toysystem import SYSTEM, Shoot, Tally, Toy

ROOT = Path(__file__).resolve().parents[2]
WAVE1 = Path(__file__).parent / "exports" / "asl-wave1-hill-621.jsonl"


class ToyNext(Toy):
    """The toy rules as a later referee runs them: careful aim is no longer allowed."""

    rules_version: ClassVar[int] = 2

    def resolve(self, state: Tally, action: Any, dice: Dice) -> Outcome[Tally]:
        if isinstance(action, Shoot) and action.careful:
            raise IllegalAction("Careful aim is no longer allowed.", rule="T5")
        return super().resolve(state, action, dice)


class ToyUnchanged(Toy):
    """A later referee's toy rules that rule every toy action as before."""

    rules_version: ClassVar[int] = 2


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


def standalone(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bot" / "log" / "verify_dice.py"), str(path)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip


async def toy_export(repo: Repository) -> str:
    """A toy game under the toy rules of today: plain and careful shots, a /roll, the end."""
    service = GameService(repo, {"toy": SYSTEM})
    await start_game(service)
    await service.handle(HERE, ALICE, "s1", Shoot(side="Axis"))
    await service.handle(HERE, BOB, "s2", Shoot(side="Allied", careful=True))
    await service.handle(HERE, ALICE, "s3", Shoot(side="Axis"))
    await service.handle(HERE, BOB, "r1", gc.RollDice(dice="2d6", reason="Morale"))
    await end_game(service)
    row = await repo.latest_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    return await export_game(repo, row)


def entries_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in verify_dice.split_lines(text)[1:]]


async def test_every_entry_records_the_rules_version_and_verifies_under_it(
    repo: Repository,
) -> None:
    text = await toy_export(repo)
    assert {e["rules"] for e in entries_of(text)} == {SYSTEM.rules_version} == {1}
    report = verify_text(text, {"toy": SYSTEM})
    assert report.ok and report.exit_status == 0, report.message
    assert "Played under" not in report.message  # nothing to say: the rules are today's
    assert "every ruling replays." in report.message
    # the full verifier checked the rulings and sides (only the signature waits for --key)
    assert "Not checked: the rulings" not in report.message
    # a later referee whose rules rule this game the same verifies it, and says under what
    same = verify_text(text, {"toy": ToyUnchanged()})
    assert same.ok and same.exit_status == 0, same.message
    assert (
        "  played under toy rules version 1: every ruling and state replays the same under toy "
        "rules version 2\n" in same.message
    )


async def test_an_export_of_older_rules_names_the_entry_ruled_differently_today(
    repo: Repository,
) -> None:
    text = await toy_export(repo)
    careful = next(e["seq"] for e in entries_of(text) if e.get("action", {}).get("careful"))
    report = verify_text(text, {"toy": ToyNext()})
    assert not report.ok and report.other_rules and report.exit_status == 3
    assert report.seq == careful
    assert report.message.startswith(
        f"NOT VERIFIED UNDER TODAY'S RULES: the rulings from entry #{careful} on were NOT verified."
    )
    assert (
        f"\nEntry #{careful} rules differently today (Careful aim is no longer allowed. (T5))"
        in report.message
    )
    assert "\nPlayed under toy rules version 1; this referee runs toy rules version 2." in (
        report.message
    )
    assert "The chain and every die were checked" in report.message
    assert "Anyone can claim older rules" in report.message

    # an entry of the running version is held to it: the same refusal is then a mismatch
    def recorded_as_today(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            entry["rules"] = 2

    bumped = reseal(text, recorded_as_today)
    forged = verify_text(bumped, {"toy": ToyNext()})
    assert not forged.ok and not forged.other_rules and forged.exit_status == 1
    assert forged.message.startswith(f"entry {careful}: ")


async def test_a_forgery_is_still_a_mismatch_and_claiming_old_rules_buys_no_ok(
    repo: Repository,
) -> None:
    text = await toy_export(repo)

    def more_hits(entries: list[dict[str, Any]]) -> None:
        shot = of_kind(entries, "action")
        shot["outcome"]["facts"] = [["hits", "5"]]

    forged = verify_text(reseal(text, more_hits), {"toy": SYSTEM})
    assert not forged.ok and not forged.other_rules and forged.exit_status == 1
    assert "another outcome than the logged one" in forged.message

    def more_hits_under_old_rules(entries: list[dict[str, Any]]) -> None:
        more_hits(entries)
        for entry in entries:
            del entry["rules"]  # "played before rules versions were recorded"

    claimed = verify_text(reseal(text, more_hits_under_old_rules), {"toy": SYSTEM})
    assert not claimed.ok and claimed.other_rules and claimed.exit_status == 3
    assert "it predates rules versions" in claimed.message
    shot = next(e["seq"] for e in entries_of(text) if e["kind"] == "action")
    assert f"the rulings from entry #{shot} on were NOT verified" in claimed.message
    # tampered dice are a mismatch whatever rules the log claims
    unsealed = text.replace('"face":', '"face":1', 1)
    assert verify_text(unsealed, {"toy": ToyNext()}).exit_status == 1


def test_a_real_wave_one_export_gets_the_rules_verdict_not_forged(tmp_path: Path) -> None:
    run = referee("verify", str(WAVE1))
    assert run.returncode == 3, run.stdout + run.stderr
    out = run.stdout.strip()
    assert out.startswith(
        "NOT VERIFIED UNDER TODAY'S RULES: the rulings from entry #5 on were NOT verified.\n"
    )
    assert (
        "Played under rules of a version it does not record (it predates rules versions); this "
        "referee runs asl rules version " in out
    )
    # the phase change already gives another outcome today (the Player Turn is rules state now)
    assert "Entry #5 rules differently today (the rules give another outcome" in out
    assert "the rulings of entries 1–4 replay the same" in out
    assert "the rulings from entry #5 on were NOT verified" in out
    assert "recorded in another form from entry #1 on and was NOT compared" in out
    assert "dice checked: 4" in out and "forged" not in out
    # the standard-library checker agrees on what it checks: the chain and every die
    plain = standalone(WAVE1)
    assert plain.returncode == 0 and plain.stdout.startswith(
        "OK: 9 entries consistent — chain, seeds, 4 dice"
    )
    assert "Not checked: the rulings" in plain.stdout


def test_a_tampered_wave_one_export_still_fails_both_verifiers(tmp_path: Path) -> None:
    text = WAVE1.read_text(encoding="utf-8")
    lines = text.splitlines()
    roll = next(i for i, line in enumerate(lines) if '"kind":"roll"' in line)
    entry = json.loads(lines[roll])
    entry["total"] = 12  # the Sniper check's DR, edited without re-hashing
    lines[roll] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def other_face(entries: list[dict[str, Any]]) -> None:
        die = of_kind(entries, "roll")["dice"][0]
        die["face"] = 7 - die["face"]  # re-hashed: the chain holds, the die does not

    resealed = tmp_path / "resealed.jsonl"
    resealed.write_text(reseal(text, other_face), encoding="utf-8")
    for path in (edited, resealed):
        full, plain = referee("verify", str(path)), standalone(path)
        assert full.returncode == 1, full.stdout
        assert plain.returncode == 1, plain.stdout
        assert "NOT VERIFIED UNDER TODAY'S RULES" not in full.stdout
