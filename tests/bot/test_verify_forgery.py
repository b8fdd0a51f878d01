"""Exports nobody can poison or forge: free text round-trips through both verifiers, and every
re-hashed edit of a field a reader sees is rejected by both (``referee verify`` in-process and
``bot/log/verify_dice.py`` as a real standard-library subprocess)."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_id, console_user
from bot.dice.game_dice import FaceScript
from bot.errors import DiceScriptRanOut
from bot.log import verify_dice
from bot.log.export import export_game
from bot.log.gamelog import canonical, entry_hash
from bot.log.verify import verify_text
from bot.models import Actor, Place, UserRef
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import open_repository
from bot.table import commands as gc

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = InstalledSystems()
PLACE = Place(guild_id=555, channel_id=666)
REF = Actor(user_id=console_id("ref"), name="ref")
ALICE = Actor(user_id=console_id("alice"), name="alice")
BOB = Actor(user_id=console_id("bob"), name="bob")
SEPARATORS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character ``str.splitlines`` splits on."""

GAME = [
    (REF, '/game new system:asl sides:"Axis,Allied" title:"Forgery test"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (REF, "/asl unit add name:A1 side:Axis kind:squad quality:4-6-7"),
    (REF, "/asl weapon add name:LMG side:Axis kind:sw_mg b:12 rof:1 owner:A1"),
    (REF, "/asl phase phase:pfph side:Axis"),
    (ALICE, "/asl fire weapons:LMG"),
    (ALICE, '/roll dice:DR reason:"Morale Check"'),
    (BOB, "/roll dice:2d6+1"),
    (REF, "/game end"),
]


async def play(
    db: Path, lines: list[tuple[Actor, str]], place: Place = PLACE, script: Any = None
) -> str:
    repo = await open_repository(db)
    try:
        service = GameService(repo, SYSTEMS, script=script)
        registry = build_registry(service.systems)
        for number, (actor, text) in enumerate(lines):
            words, options = parse_line(text)
            request = Request(place, actor, f"{db.name}-{number}", words, options)
            await execute(service, request, registry, console_user)
        row = await repo.latest_game(place.guild_id, place.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await repo.close()


def standalone(text: str | bytes, tmp: Path) -> subprocess.CompletedProcess[str]:
    path = tmp / f"export-{next(_names)}.jsonl"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8", newline="")
    else:
        path.write_bytes(text)
    return subprocess.run(
        [sys.executable, "-I", str(ROOT / "bot" / "log" / "verify_dice.py"), str(path)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip


_names = itertools.count()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> str:
    return asyncio.run(play(tmp_path_factory.mktemp("forgery") / "game.db", GAME))


def test_the_genuine_export_verifies_with_both(exported: str, tmp_path: Path) -> None:
    report = verify_text(exported, SYSTEMS)
    assert report.ok, report.message
    assert "compare the head with the last one the bot posted" in report.message
    run = standalone(exported, tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("OK: 10 entries consistent"), run.stdout
    assert "\n  dice checked: 6\n" in run.stdout


# --- free text: any text, any line separator --------------------------------------------


@pytest.mark.parametrize("separator", list(SEPARATORS), ids=[hex(ord(c)) for c in SEPARATORS])
def test_every_unicode_line_separator_in_free_text_verifies(tmp_path: Path, separator: str) -> None:
    assert len(f"a{separator}b".splitlines()) == 2  # what the verifiers used to split on
    reason = f"why{separator}not"
    text = asyncio.run(play_roll_reason(tmp_path / "sep.db", reason))
    report = verify_text(text, SYSTEMS)
    assert report.ok, report.message
    run = standalone(text, tmp_path)
    assert run.returncode == 0, run.stdout
    roll = next(json.loads(x) for x in text.split("\n") if '"kind":"roll"' in x)
    assert roll["reason"] == reason


async def play_roll_reason(db: Path, reason: str, title: str = "t", phrase: str = "p") -> str:
    repo = await open_repository(db)
    try:
        service = GameService(repo, SYSTEMS)
        new = gc.GameNew(system="asl", sides=("Axis", "Allied"), title=title)
        await service.handle(PLACE, REF, "n", new)
        await service.handle(PLACE, ALICE, "s", gc.GameSeat(side="Axis"))
        await service.handle(PLACE, ALICE, "p", gc.GameSeed(phrase=phrase))
        await service.handle(PLACE, ALICE, "r", gc.RollDice(dice="DR", reason=reason))
        await service.handle(PLACE, REF, "e", gc.GameEnd())
        row = await repo.latest_game(PLACE.guild_id, PLACE.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await repo.close()


free_text = st.text(min_size=1, max_size=40).filter(lambda t: t.strip() != "")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reason=free_text,
    title=free_text,
    phrase=free_text,
    name=free_text,
)
def test_any_free_text_round_trips_through_export_and_both_verifiers(
    reason: str, title: str, phrase: str, name: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        text = asyncio.run(play_named(Path(tmp) / "g.db", reason, title, phrase, name))
        report = verify_text(text, SYSTEMS)
        assert report.ok, report.message
        assert verify_dice.check(verify_dice.split_lines(text))["entries"] == 5
        entries = [json.loads(line) for line in verify_dice.split_lines(text)]
        assert entries[0]["title"] == title
        assert entries[1]["title"] == title
        assert entries[2]["player"]["name"] == name
        assert entries[3]["phrase"] == phrase
        assert entries[4]["reason"] == reason


async def play_named(db: Path, reason: str, title: str, phrase: str, name: str) -> str:
    repo = await open_repository(db)
    player = Actor(user_id=77, name=name)
    try:
        service = GameService(repo, SYSTEMS)
        new = gc.GameNew(system="asl", sides=("Axis", "Allied"), title=title[:100])
        await service.handle(PLACE, REF, "n", new)
        await service.handle(PLACE, player, "s", gc.GameSeat(side="Axis"))
        await service.handle(PLACE, player, "p", gc.GameSeed(phrase=phrase))
        await service.handle(PLACE, player, "r", gc.RollDice(dice="DR", reason=reason))
        await service.handle(PLACE, REF, "e", gc.GameEnd())
        row = await repo.latest_game(PLACE.guild_id, PLACE.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await repo.close()


def test_a_standalone_run_on_free_text_with_separators(tmp_path: Path) -> None:
    text = asyncio.run(play_named(tmp_path / "g.db", SEPARATORS, "T\u2028", "p\x85", "n\u2029"))
    run = standalone(text, tmp_path)
    assert run.returncode == 0, run.stdout


# --- forgeries: edit a field, re-hash the whole chain and the header ------------------------


def reseal(text: str, edit: Callable[[list[dict[str, Any]]], None]) -> str:
    """Apply ``edit`` to the parsed entries, then recompute every hash, every ``prev`` and the
    header's head, as a forger would."""
    lines = verify_dice.split_lines(text)
    header = json.loads(lines[0])
    entries = [json.loads(line) for line in lines[1:]]
    edit(entries)
    prev = "0" * 64
    for entry in entries:
        entry.pop("hash", None)
        entry["prev"] = prev
        entry["hash"] = prev = entry_hash(canonical(entry))
    header["head"] = {"seq": entries[-1]["seq"], "hash": prev}
    return "\n".join(canonical(x) for x in [header, *entries]) + "\n"


def of_kind(entries: list[dict[str, Any]], kind: str, n: int = 0) -> dict[str, Any]:
    return [e for e in entries if e["kind"] == kind][n]


def dr_to_snake_eyes(entries: list[dict[str, Any]]) -> None:
    roll = of_kind(entries, "roll")
    for die in roll["dice"]:
        die["face"], die["scripted"] = 1, True
    roll["rolls"][0]["faces"] = [1, 1]
    roll["total"], roll["text"] = 2, "DR 2 (1,1)"


def roll_text(entries: list[dict[str, Any]]) -> None:
    roll = of_kind(entries, "roll")  # another text than the real one, whatever the dice gave
    roll["text"] = "DR 12 (6,6)" if roll["text"] == "DR 2 (1,1)" else "DR 2 (1,1)"


def roll_detail(entries: list[dict[str, Any]]) -> None:
    roll = of_kind(entries, "roll")  # other faces than the real ones, whatever the dice gave
    faces = roll["rolls"][0]["faces"]
    roll["rolls"][0]["faces"] = [6, 6] if faces == [1, 1] else [1, 1]


def action_side(entries: list[dict[str, Any]]) -> None:
    fire = [e for e in entries if e["kind"] == "action"][-1]
    fire["side"] = "Allied"


def action_by(entries: list[dict[str, Any]]) -> None:
    fire = [e for e in entries if e["kind"] == "action"][-1]
    fire["by"] = {"id": BOB.user_id, "name": "bob"}


def action_agreed(entries: list[dict[str, Any]]) -> None:
    fire = [e for e in entries if e["kind"] == "action"][-1]
    fire["by"] = {"id": BOB.user_id, "name": "bob"}
    fire["agreed"] = {"proposal": 2, "proposed_by": {"id": ALICE.user_id, "name": "alice"}}


def die_label(entries: list[dict[str, Any]]) -> None:
    fire = [e for e in entries if e["kind"] == "action"][-1]
    fire["dice"][0]["label"] = "Sniper dr"


def die_label_everywhere(entries: list[dict[str, Any]]) -> None:
    fire = [e for e in entries if e["kind"] == "action"][-1]
    label = fire["outcome"]["rolls"][0]["label"]
    fire["outcome"]["rolls"][0]["label"] = "Sniper DR"
    for die in fire["dice"]:
        die["label"] = die["label"].replace(label, "Sniper DR")


def seat_player(entries: list[dict[str, Any]]) -> None:
    of_kind(entries, "game.seat")["player"] = UserRef(id=99, name="mallory").model_dump()


def void_a_seat(entries: list[dict[str, Any]]) -> None:
    end = entries.pop()
    void = dict(end)
    for key in ("revealed_epoch", "revealed_seed"):
        void.pop(key)
    void.update(kind="game.void", entry=2, reason="forged", interaction="x")
    entries.append(void)
    end["seq"] = void["seq"] + 1
    entries.append(end)


def header(key: str, value: Any) -> Callable[[str], str]:
    def forge(text: str) -> str:
        lines = text.split("\n")
        data = json.loads(lines[0])
        data[key] = value
        lines[0] = canonical(data)
        return "\n".join(lines)

    return forge


ENTRY_FORGERIES: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "a DR rewritten to (1,1) with its dice marked scripted": dr_to_snake_eyes,
    "a roll's displayed text": roll_text,
    "a roll's per-die detail": roll_detail,
    "an action's acting side": action_side,
    "an action's by": action_by,
    "an action's by, said to be agreed": action_agreed,
    "a die label": die_label,
    "a seat's player": seat_player,
    "a void of a seat entry": void_a_seat,
}
FULL_ONLY: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "a die label in the dice and the roll alike": die_label_everywhere,
}
HEADER_FORGERIES: dict[str, Callable[[str], str]] = {
    "the header's title": header("title", "Another game"),
    "the header's status": header("status", "active"),
    "the header's guild": header("guild", 1),
    "the header's channel": header("channel", 2),
    "the header's head seq": header("head", {"seq": 3, "hash": "0" * 64}),
}


def test_the_roll_forgeries_change_a_genuine_snake_eyes_too() -> None:
    """The game's dice are real: a genuine DR 2 (1,1), 1 time in 36, once made these no-ops."""
    entries: list[dict[str, Any]] = [
        {"kind": "roll", "text": "DR 2 (1,1)", "rolls": [{"faces": [1, 1]}]}
    ]
    roll_text(entries)
    roll_detail(entries)
    assert entries[0]["text"] == "DR 12 (6,6)"
    assert entries[0]["rolls"][0]["faces"] == [6, 6]


@pytest.mark.parametrize("what", list(ENTRY_FORGERIES))
def test_a_resealed_forgery_is_rejected_by_both_verifiers(
    exported: str, tmp_path: Path, what: str
) -> None:
    forged = reseal(exported, ENTRY_FORGERIES[what])
    assert forged != exported
    report = verify_text(forged, SYSTEMS)
    assert not report.ok, what
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("MISMATCH"), (what, run.stdout)


@pytest.mark.parametrize("what", list(FULL_ONLY))
def test_a_forgery_consistent_in_every_copy_is_rejected_by_the_full_verifier(
    exported: str, tmp_path: Path, what: str
) -> None:
    forged = reseal(exported, FULL_ONLY[what])
    report = verify_text(forged, SYSTEMS)
    assert not report.ok and "outcome" in report.message, report.message
    # the standard-library checker does not replay rulings, and says so when it passes
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 or "Not checked: the rulings" in run.stdout


@pytest.mark.parametrize("what", list(HEADER_FORGERIES))
def test_a_forged_header_is_rejected_by_both_verifiers(
    exported: str, tmp_path: Path, what: str
) -> None:
    forged = HEADER_FORGERIES[what](exported)
    assert forged != exported
    assert not verify_text(forged, SYSTEMS).ok
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 and "header" in run.stdout, run.stdout


def test_a_header_alone_and_invalid_utf8_get_a_verdict(exported: str, tmp_path: Path) -> None:
    first = exported.split("\n")[0] + "\n"
    report = verify_text(first, SYSTEMS)
    assert not report.ok and "no log entries" in report.message
    run = standalone(first, tmp_path)
    assert run.returncode == 1 and "no log entries" in run.stdout, run.stdout
    broken = exported.encode("utf-8").replace(b"Forgery test", b"Forgery \xff\xfe", 1)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(broken)
    cli = subprocess.run(
        [sys.executable, "-m", "bot", "verify", str(path)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert cli.returncode == 1 and "not UTF-8" in cli.stdout + cli.stderr, cli.stdout + cli.stderr
    assert "Traceback" not in cli.stderr
    run = standalone(broken, tmp_path)
    assert run.returncode == 1 and "not UTF-8" in run.stdout, run.stdout


def test_scripted_dice_are_refused_in_a_game_not_started_with_them(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    asyncio.run(play(db, GAME[:3]))

    async def scripted_roll() -> None:
        repo = await open_repository(db)
        try:
            service = GameService(repo, SYSTEMS, script=FaceScript([1, 1]))
            with pytest.raises(DiceScriptRanOut, match="without scripted dice"):
                await service.handle(PLACE, ALICE, "late", gc.RollDice(dice="DR"))
        finally:
            await repo.close()

    asyncio.run(scripted_roll())
