"""League play through a real `referee console`: /game result, /game list, and /game league's
zip (the ASL Player Ratings CSV with its exact header, and each game's export, which verifies) —
on both engines (a real SQLite file, a real PostgreSQL server)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

from bot.table.league import RATINGS_HEADER, SETTLEMENTS_HEADER
from tests.bot.test_console import referee

HEADER = (
    "TOURNAMENT ID,ROUND NO.,LEAVE BLANK,SCENARIO ID,PLAYER 1 NAME,PLAYER 1 ATTACKER OR DEFENDER,"
    "PLAYER 1 ALLIES OR AXIS,PLAYER 1 RESULT,PLAYER 2 NAME,PLAYER 2 ATTACKER OR DEFENDER,"
    "PLAYER 2 ALLIES OR AXIS,PLAYER 2 RESULT,DATE"
)


def play(database: Path | str, tmp_path: Path, channel: str, lines: str) -> str:
    run = referee(
        "console", "-", "--db", str(database), "--channel", channel,
        "--admin", "org", "--out", str(tmp_path), stdin=lines,
    )  # fmt: skip
    return run.stdout


def test_results_are_logged_listed_and_exported_as_the_ratings_csv_with_each_game(
    database: Path | str, tmp_path: Path
) -> None:
    assert ",".join(RATINGS_HEADER) == HEADER
    first = play(
        database,
        tmp_path,
        "table-1",
        """\
@org /game new system:asl title:"Round 1"
@paul /game seat side:Axis
@ron /game seat side:Allied
@paul /game result winner:axis scenario:FT91 attacker:Axis tournament:CASLO_18 round:1
@ron /game result winner:chess scenario:FT91 attacker:Axis
@zed /game result winner:draw scenario:FT91 attacker:Axis
@ron /game confirm entry:4
@paul /game result winner:draw scenario:FT91 attacker:Axis
@org /game end
""",
    )
    assert (
        "#4 paul proposes /game result winner:Axis scenario:FT91 attacker:Axis "
        "tournament:CASLO_18; the Allied player confirms with /game confirm entry:4 or disputes "
        "it with /game decline entry:4 — paul"
    ) in first
    assert "line 5: " in first  # an unknown side: one sentence, nothing logged
    assert "line 6: Take a seat with /game seat before acting in this game." in first
    assert "#5 Result of FT91: Axis wins (Axis attacked), agreed by both sides — ron" in first
    assert (
        "line 8: This game's result is settled (Axis wins FT91 (Axis attacked)); only a referee "
        "without a seat may record another."
    ) in first
    second = play(
        database,
        tmp_path,
        "table-2",
        """\
@org /game new system:asl title:"Round 2"
@jim /game seat side:Allied
@paul /game seat side:Axis
@jim /game result winner:draw scenario:AP99 attacker:Allied tournament:CASLO_18 round:2
@paul /game decline entry:4 reason:"I won on the last turn"
@jim /game rule entry:5 decision:grant reason:"seated"
@org /game rule entry:5 decision:grant reason:"the last CC was after time was called"
""",
    )
    assert "#5 paul disputes the result of proposal 4 (I won on the last turn)" in second
    assert "line 6: Only a referee without a seat may rule on a dispute or a claim." in second
    assert (
        "#6 Ruling on entry 5: granted — a draw in AP99 (Allied attacked): the last CC was "
        "after time was called — org"
    ) in second
    third = play(
        database,
        tmp_path,
        "table-3",
        """\
@org /game new system:asl title:"Round 3"
@ann /game seat side:Axis
@bob /game seat side:Allied
@bob /game result winner:Axis scenario:J76 attacker:Allied tournament:CASLO_18 round:3
@ann /game result winner:Allied scenario:J76 attacker:Allied tournament:CASLO_18 round:3
@ann /game status
""",
    )
    assert "#4 Result of J76: Axis wins (Allied attacked), conceded — bob" in third
    assert "Result: Axis wins J76 (Allied attacked), conceded by bob (entry 4)" in third
    unsettled = play(
        database,
        tmp_path,
        "table-4",
        """\
@org /game new system:asl title:"Round 4"
@kim /game seat side:Axis
@lee /game seat side:Allied
@kim /game result winner:Axis scenario:J76 attacker:Axis tournament:CASLO_18 round:4
""",
    )
    assert "proposes /game result" in unsettled
    listing = play(database, tmp_path, "table-2", "@org /game list\n")
    assert "Active games in this server: 3" in listing
    assert "paul: <#" in listing and "Round 2 (asl, Axis)" in listing
    refused = play(database, tmp_path, "table-2", "@paul /game league tournament:CASLO_18\n")
    assert "Only a server administrator or referee" in refused
    exported = play(database, tmp_path, "table-2", "@org /game league tournament:CASLO_18\n")
    assert "CASLO_18: 3 results (1 ruled by a referee) and their games' exports" in exported
    with zipfile.ZipFile(tmp_path / "CASLO_18-results.zip") as archive:
        names = archive.namelist()
        table = archive.read("results.csv").decode("utf-8")
        times = archive.read("response_times.csv").decode("utf-8")
        settled = archive.read("settlements.csv").decode("utf-8")
        for name in names[3:]:
            (tmp_path / name).write_bytes(archive.read(name))
    rows = list(csv.reader(io.StringIO(table)))
    assert table.splitlines()[0] == HEADER
    assert len(rows) == 4  # the header and the three settled results: not the one proposed
    assert rows[1][:12] == [
        "CASLO_18", "1", "", "FT91", "paul", "attacker", "axis", "win",
        "ron", "defender", "allies", "lost",
    ]  # fmt: skip
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", rows[1][12]), rows[1]
    assert rows[2][:12] == [
        "CASLO_18", "2", "", "AP99", "paul", "defender", "axis", "draw",
        "jim", "attacker", "allies", "draw",
    ]  # fmt: skip
    assert rows[3][:12] == [
        "CASLO_18", "3", "", "J76", "ann", "defender", "axis", "win",
        "bob", "attacker", "allies", "lost",
    ]  # fmt: skip
    assert names[:3] == ["results.csv", "response_times.csv", "settlements.csv"]
    assert len(names) == 6 and all(n.startswith("game-") for n in names[3:])
    settlements = list(csv.reader(io.StringIO(settled)))
    assert settlements[0] == list(SETTLEMENTS_HEADER)
    assert [row[:3] + row[4:] for row in settlements[1:]] == [
        ["CASLO_18", "1", "FT91", "Axis wins", "agreed", "ron", "5", ""],
        ["CASLO_18", "2", "AP99", "draw", "ruled", "org", "6",
         "the last CC was after time was called"],
        ["CASLO_18", "3", "J76", "Axis wins", "conceded", "bob", "4", ""],
    ]  # fmt: skip
    seats = [row[3:6] for row in csv.reader(io.StringIO(times))]
    assert seats[0] == ["game", "side", "player"]  # one row per game and seat, sides in order
    assert [row[1:] for row in seats[1:]] == [
        ["Axis", "paul"], ["Allied", "ron"], ["Axis", "paul"], ["Allied", "jim"],
        ["Axis", "ann"], ["Allied", "bob"],
    ]  # fmt: skip
    for name in names[3:]:
        verified = referee("verify", str(tmp_path / name))
        assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_name_that_starts_like_a_formula_is_text_in_the_spreadsheet(tmp_path: Path) -> None:
    """Found by trying it as a hostile player: a Discord name ``=HYPERLINK(…)`` went into
    results.csv as is, and the organiser's spreadsheet ran it as a formula. A cell that starts
    like a formula (``= + - @``, tab, carriage return) gets a leading ``'``; numbers stay."""
    play(
        tmp_path / "league.db",
        tmp_path,
        "table-1",
        """\
@org /game new system:asl title:"Round 1"
@=cmd|calc!A0 /game seat side:Axis
@ron /game seat side:Allied
@ron /game result winner:Axis scenario:FT91 attacker:Axis tournament:"+T1" round:1
@org /game league tournament:"+T1"
""",
    )
    with zipfile.ZipFile(tmp_path / "_T1-results.zip") as archive:
        results = list(csv.reader(io.StringIO(archive.read("results.csv").decode("utf-8"))))
        times = list(csv.reader(io.StringIO(archive.read("response_times.csv").decode("utf-8"))))
    assert results[1][:5] == ["'+T1", "1", "", "FT91", "'=cmd|calc!A0"]
    assert results[1][8] == "ron"
    assert [row[5] for row in times[1:]] == ["'=cmd|calc!A0", "ron"]
    assert [row[0] for row in times[1:]] == ["'+T1", "'+T1"]
