"""Both verifiers read an export strictly and check who acted on the sides each action concerns
(issue: an export proves what its verdict says).

Each forgery here was accepted by a verifier before: ``sides`` dropped from an action re-attributed
to a player who could not take it; a die written ``true`` or ``6.0``; versions nobody knows; a
unit name the bot refuses; timestamps running backwards or not a time at all; an interaction id
used twice. ``referee verify`` runs in-process, ``bot/log/verify_dice.py`` as a real
standard-library subprocess.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.log.export import export_game
from bot.log.verify import verify_text
from bot.models import Actor
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from rules_core.asl.actions import AddUnit
from tests.bot.test_verify_forgery import (
    ALICE,
    BOB,
    PLACE,
    REF,
    SYSTEMS,
    play,
    reseal,
    standalone,
)

LINES = [
    (REF, '/game new system:asl sides:"Axis,Allied" title:"Strict test"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (REF, "/asl unit add name:A1 side:Axis kind:squad quality:4-6-7"),
    (REF, "/asl unit add name:A1 side:Allied kind:squad quality:4-6-7 update:true"),
    (REF, "/asl level side:Axis level:2"),
    (ALICE, '/roll dice:DR reason:"Morale Check"'),
    (REF, "/game end"),
]


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> str:
    return asyncio.run(play(tmp_path_factory.mktemp("strict") / "game.db", LINES))


def both(text: str, tmp: Path) -> tuple[str, str]:
    """(referee verify's message or "OK", the standalone checker's output); each must refuse."""
    report = verify_text(text, SYSTEMS)
    run = standalone(text, tmp)
    return ("OK" if report.ok else report.message), run.stdout


def test_the_honest_game_verifies_and_its_entries_are_of_version_2(
    honest: str, tmp_path: Path
) -> None:
    full, plain = both(honest, tmp_path)
    assert full.startswith("OK"), full
    assert plain.startswith("OK"), plain
    lines = honest.splitlines()
    assert json.loads(lines[0])["version"] == 2
    assert {json.loads(line)["v"] for line in lines[1:]} == {2}


# --- permission on the sides the verifier recomputes ----------------------------------------


def by_player(seq: int, player: Actor, *, drop_sides: bool, downgrade: bool = False) -> Any:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[seq - 1]["by"] = {"id": player.user_id, "name": player.name}
        if drop_sides:
            del entries[seq - 1]["sides"]
        if downgrade:  # every entry claims the older format, which did not record sides
            for entry in entries:
                entry["v"] = 1

    return edit


def test_a_takeover_of_the_other_sides_unit_without_sides_is_refused_by_both(
    honest: str, tmp_path: Path
) -> None:
    """Entry 5 moves the Axis A1 to the Allied side (a referee may); said to be Bob's (the Allied
    player, whom the bot refuses: "You do not hold the Axis seat") with ``sides`` deleted."""
    forged = reseal(honest, by_player(5, BOB, drop_sides=True))
    full, plain = both(forged, tmp_path)
    assert "entry 5" in full and full != "OK", full
    assert plain.startswith("MISMATCH at entry 5: has no 'sides'"), plain


def test_an_older_format_without_sides_is_checked_on_recomputed_sides_by_referee_verify(
    honest: str, tmp_path: Path
) -> None:
    forged = reseal(honest, by_player(5, BOB, drop_sides=True, downgrade=True))
    full, plain = both(forged, tmp_path)
    assert full.startswith("entry 5: bob does not hold the Axis seat"), full
    # the standard-library checker cannot recompute sides: it says what it left unchecked
    assert plain.startswith("OK"), plain
    assert "Not checked: who declared 1 older action recording no sides, beyond their acting" in (
        plain
    )


def test_set_up_of_both_sides_said_to_be_one_players_is_refused_by_both(
    honest: str, tmp_path: Path
) -> None:
    """Entry 6 (``/asl level``) concerns both sides: a player alone only proposes it."""
    for downgrade in (False, True):
        forged = reseal(honest, by_player(6, ALICE, drop_sides=True, downgrade=downgrade))
        full, plain = both(forged, tmp_path)
        if downgrade:  # recomputed: it concerns the Allied side too
            assert full.startswith("entry 6: alice does not hold the Allied seat"), full
        else:
            assert full.startswith("entry 6: has no 'sides'"), full
            assert plain.startswith("MISMATCH at entry 6: has no 'sides'"), plain
    forged = reseal(honest, by_player(6, ALICE, drop_sides=False))
    assert both(forged, tmp_path)[1].startswith("MISMATCH at entry 6: alice holds no seat of")


def test_a_referee_only_option_said_to_be_a_players_is_refused(tmp_path: Path) -> None:
    lines = [*LINES[:6], (REF, "/asl phase phase:pfph side:Axis correction:true"), LINES[-1]]
    text = asyncio.run(play(tmp_path / "g.db", lines))

    def edit(entries: list[dict[str, Any]]) -> None:
        entries[6]["by"] = {"id": ALICE.user_id, "name": ALICE.name}
        entries[6]["sides"] = ["Axis"]
        entries[6].pop("referee_only", None)

    report = verify_text(reseal(text, edit), SYSTEMS)
    assert not report.ok and report.seq == 7, report.message


# --- strict reading ---------------------------------------------------------------------------


def first(kind: str) -> Callable[[list[dict[str, Any]]], dict[str, Any]]:
    return lambda entries: next(e for e in entries if e["kind"] == kind)


def set_face(value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def edit(entries: list[dict[str, Any]]) -> None:
        roll = first("roll")(entries)
        face = roll["dice"][0]["face"]
        roll["dice"][0]["face"] = value if value != "same" else face
        roll["rolls"][0]["faces"][0] = roll["dice"][0]["face"]

    return edit


def as_bool_or_float(entries: list[dict[str, Any]]) -> None:
    roll = first("roll")(entries)
    face = roll["dice"][0]["face"]
    roll["dice"][0]["face"] = True if face == 1 else float(face)


def entry_version(entries: list[dict[str, Any]]) -> None:
    entries[2]["v"] = 3


def seat_time(value: str) -> Callable[[list[dict[str, Any]]], None]:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[2]["at"] = value

    return edit


def same_interaction(entries: list[dict[str, Any]]) -> None:
    entries[2]["interaction"] = entries[1]["interaction"]


def sequence_as_text(entries: list[dict[str, Any]]) -> None:
    entries[1]["by"]["id"] = True


ENTRY_EDITS: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "a die face written true or 6.0": as_bool_or_float,
    "an entry of version 3": entry_version,
    "an entry written before the one before it": seat_time("2020-01-01T00:00:00.000+00:00"),
    "a time that is not a time": seat_time("yesterday"),
    "a date that does not exist": seat_time("2026-02-30T10:00:00.000+00:00"),
    "an interaction id used twice": same_interaction,
    "a user id written true": sequence_as_text,
}


@pytest.mark.parametrize("what", list(ENTRY_EDITS))
def test_loose_reading_is_refused_by_both(honest: str, tmp_path: Path, what: str) -> None:
    forged = reseal(honest, ENTRY_EDITS[what])
    assert forged != honest
    full, plain = both(forged, tmp_path)
    assert full != "OK" and plain.startswith("MISMATCH"), (what, full, plain)


def header_edit(key: str, value: Any) -> Callable[[str], str]:
    def forge(text: str) -> str:
        lines = text.split("\n")
        header = json.loads(lines[0])
        header[key] = value
        lines[0] = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "\n".join(lines)

    return forge


LINE_EDITS: dict[str, Callable[[str], str]] = {
    "a header of format version 3": header_edit("version", 3),
    "a header's version written true": header_edit("version", True),
    "an unknown dice derivation": header_edit("dice", "docs/DICE.md version 9"),
    "a beacon derivation for a server game": header_edit("dice", "docs/DICE.md version 2"),
    "a line that is not canonical JSON": lambda text: text.replace('{"at":', '{ "at":', 1),
    "a key given twice": lambda text: text.replace('{"at":', '{"at":"x","at":', 1),
    "a float written 6.0": lambda text: text.replace('"epoch":1,', '"epoch":1.0,', 1),
}


@pytest.mark.parametrize("what", list(LINE_EDITS))
def test_unknown_versions_and_loose_lines_are_refused_by_both(
    honest: str, tmp_path: Path, what: str
) -> None:
    forged = LINE_EDITS[what](honest)
    assert forged != honest
    full, plain = both(forged, tmp_path)
    assert full != "OK" and plain.startswith("MISMATCH"), (what, full, plain)


async def play_with_service(db: Path, name: str) -> str:
    """The bot itself as the forger: a unit added through the service, past the command door
    that refuses the name (a consistent log whose only fault is the name)."""
    repo = await open_repository(db)
    try:
        service = GameService(repo, SYSTEMS)
        new = gc.GameNew(system="asl", sides=("Axis", "Allied"), title="Names")
        await service.handle(PLACE, REF, "n", new)
        unit = AddUnit(name=name, side="Axis", kind="squad", quality="4-6-7")
        await service.handle(PLACE, REF, "u", unit)
        await service.handle(PLACE, REF, "e", gc.GameEnd())
        row = await repo.latest_game(PLACE.guild_id, PLACE.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await repo.close()


@pytest.mark.parametrize(
    "name", ["A\x00", "A\u2028B", "HMG, LMG", "x" * 81], ids=["NUL", "U+2028", "comma", "81"]
)
def test_a_name_the_bot_refuses_is_refused_by_both(tmp_path: Path, name: str) -> None:
    text = asyncio.run(play_with_service(tmp_path / "n.db", name))
    full, plain = both(text, tmp_path)
    assert full.startswith("entry 2: names a new thing"), full
    assert plain.startswith("MISMATCH at entry 2: names a new thing"), plain


def test_a_name_the_bot_takes_verifies(tmp_path: Path) -> None:
    text = asyncio.run(play_with_service(tmp_path / "n.db", "  4-6-7 Élite ü  "))
    full, plain = both(text, tmp_path)
    assert full.startswith("OK") and plain.startswith("OK"), (full, plain)


def test_the_standalone_checker_agrees_with_the_bot_on_names() -> None:
    from bot.commands.registry import MAX_NAME, _check_new_name  # the bot's own door
    from bot.log import reading
    from rules_core.errors import InvalidInput

    assert reading.MAX_NAME == MAX_NAME
    samples = [chr(c) for c in range(0, 0x3100)] + ["a" * 80, "a" * 81, " a ", "a,b", "\U0001f600"]
    for sample in samples:
        try:
            _check_new_name(f"x{sample}y")
            bot_takes = True
        except InvalidInput:
            bot_takes = False
        assert (reading.name_problem(f"x{sample}y") is None) == bot_takes, repr(sample)


def test_the_standalone_checker_knows_every_command_naming_a_new_thing() -> None:
    from bot.commands.registry import _names_a_new_thing, build_registry
    from bot.log import reading

    registry = build_registry(SYSTEMS)
    naming = {
        spec.path
        for spec in registry.commands.values()
        for option in spec.options
        if _names_a_new_thing(spec, option)
    }
    assert naming, "no command names a new thing?"
    assert {p for p in naming if not p.endswith(".add")} == set(reading.NAMING)


def test_the_free_text_limits_are_the_commands_own() -> None:
    from bot.log import reading

    def limits(model: Any, field: str) -> tuple[int, int]:
        info = model.model_fields[field]
        low = next((m.min_length for m in info.metadata if hasattr(m, "min_length")), None)
        high = next(m.max_length for m in info.metadata if hasattr(m, "max_length"))
        return (low or 0, high)

    expected = {
        ("game.new", "title"): limits(gc.GameNew, "title"),
        ("game.seed", "phrase"): limits(gc.GameSeed, "phrase"),
        ("roll", "reason"): limits(gc.RollDice, "reason"),
        ("game.void", "reason"): limits(gc.GameVoid, "reason"),
        ("game.decline", "reason"): limits(gc.GameDecline, "reason"),
        ("game.cancel", "reason"): limits(gc.GameCancel, "reason"),
        ("game.result", "scenario"): limits(gc.GameResult, "scenario"),
        ("game.result", "tournament"): limits(gc.GameResult, "tournament"),
    }
    for key, value in expected.items():
        assert reading.TEXT_LIMITS[key] == value, key


HANDOVER = [
    LINES[0],
    (REF, "/game referee add user:@alice"),
    LINES[1],
    LINES[2],
    (REF, "/game seat side:Axis player:@carol"),
    LINES[-1],
]
"""A referee without a seat reseats Axis (entry 5) while Alice, a referee too, holds it."""


def handover_by_alice(entries: list[dict[str, Any]]) -> None:
    """Entry 5 said to be Alice's own: she gives her seat away alone."""
    entries[4]["by"] = dict(entries[2]["by"])


def test_a_referee_who_plays_giving_their_seat_away_alone_is_refused_by_both(
    tmp_path: Path,
) -> None:
    """Alice, a referee who plays Axis, hands her seat to Carol alone and is then a referee
    without a seat (who rules on disputes): the bot only proposes it; entry 5, a referee's
    reseat, said to be Alice's, is refused."""
    honest = asyncio.run(play(tmp_path / "handover.db", HANDOVER))
    assert both(honest, tmp_path)[0].startswith("OK")
    full, plain = both(reseal(honest, handover_by_alice), tmp_path)
    assert full.startswith("entry 5: alice gives their Axis seat away alone"), full
    assert plain.startswith("MISMATCH at entry 5: alice gives their Axis seat away alone"), plain
