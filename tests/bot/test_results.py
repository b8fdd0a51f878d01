"""Results both sides sign (issue 22): a player's /game result is a proposal the other side
confirms or disputes; naming the other side the winner concedes; a dispute waits for a referee
without a seat, whose ruling and reason are logged. Both verifiers accept the honest exports and
reject the forgeries: a result recorded without the other side's confirmation, a ruling by a
referee who plays, a referee who plays acting for the other side alone. An export of a game
played before today (entries of version 1, when a referee acted for every side) still verifies.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_id, console_user
from bot.errors import UserError
from bot.log import seats, verify_dice
from bot.log.export import export_game
from bot.log.gamelog import FORMAT_VERSION
from bot.log.verify import verify_text
from bot.models import Actor, Reply
from bot.service.game_service import GameService
from bot.service.replies import table_title
from bot.storage import open_repository
from bot.table import commands as gc
from rules_core.errors import RulesError
from tests.bot.test_verify_forgery import ALICE, BOB, PLACE, REF, SYSTEMS, reseal, standalone

CAROL = Actor(user_id=console_id("carol"), name="carol")


async def play(db: Path, lines: list[tuple[Actor, str]]) -> str:
    """The export of a game played line by line; a refused line changes nothing and is noted
    in ``REFUSED`` (one sentence each)."""
    repo = await open_repository(db)
    try:
        service = GameService(repo, SYSTEMS)
        registry = build_registry(service.systems)
        for number, (actor, text) in enumerate(lines):
            words, options = parse_line(text)
            request = Request(PLACE, actor, f"{db.name}-{number}", words, options)
            try:
                await execute(service, request, registry, console_user)
            except (UserError, RulesError) as exc:
                REFUSED[(db.stem, text)] = str(exc)
        row = await repo.latest_game(PLACE.guild_id, PLACE.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await repo.close()


REFUSED: dict[tuple[str, str], str] = {}

DISPUTED: list[tuple[Actor, str]] = [
    (REF, '/game new system:asl title:"Round 2"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (REF, "/game referee add user:@alice"),  # the Axis player referees too: a referee who plays
    (ALICE, "/asl unit add name:R side:Allied kind:squad quality:4-4-7"),  # proposed: #5
    (BOB, "/game confirm entry:5"),
    (ALICE, "/game result winner:Axis scenario:AP99 attacker:Axis tournament:T round:2"),  # #7
    (BOB, '/game decline entry:7 reason:"I held the village"'),  # the dispute: #8
    (ALICE, "/game rule entry:8 decision:grant reason:mine"),  # refused: she plays
    (REF, '/game rule entry:8 decision:grant reason:"the village fell on turn 6"'),  # #9
    (ALICE, "/game end"),  # proposed: #10
    (BOB, "/game confirm entry:10"),
]
CONFIRMED: list[tuple[Actor, str]] = [
    (REF, '/game new system:asl title:"Round 1"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (BOB, "/game result winner:draw scenario:FT91 attacker:Axis tournament:T round:1"),  # #4
    (CAROL, "/game confirm entry:4"),  # refused: not the other side
    (ALICE, "/game confirm entry:4"),
    (REF, "/game end"),
]
CONCEDED: list[tuple[Actor, str]] = [
    (REF, '/game new system:asl title:"Round 3"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (ALICE, "/game result winner:Allied scenario:J76 attacker:Axis tournament:T round:3"),
    (REF, "/game end"),
]

RESEATED: list[tuple[Actor, str]] = [
    (REF, '/game new system:asl title:"Round 5"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (ALICE, "/game result winner:Axis scenario:FT91 attacker:Axis tournament:T round:5"),  # #4
    (ALICE, "/asl level side:Axis level:2"),  # proposed: #5
    (REF, "/game seat side:Axis player:@carol"),  # #6: alice no longer speaks for Axis
    (BOB, "/game confirm entry:4"),  # refused: it lapsed
    (CAROL, "/game result winner:Axis scenario:FT91 attacker:Axis tournament:T round:5"),  # #7
    (BOB, "/game confirm entry:7"),  # #8
    (REF, "/game end"),
]


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("results")
    return {
        name: asyncio.run(play(folder / f"{name}.db", lines))
        for name, lines in (
            ("disputed", DISPUTED),
            ("confirmed", CONFIRMED),
            ("conceded", CONCEDED),
            ("reseated", RESEATED),
        )
    }


def entries_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in verify_dice.split_lines(text)[1:]]


def test_a_result_is_confirmed_disputed_and_ruled_or_conceded_as_the_log_shows(
    exports: dict[str, str],
) -> None:
    disputed = entries_of(exports["disputed"])
    kinds = [e["kind"] for e in disputed]
    assert kinds == [
        "game.new", "game.seat", "game.seat", "game.referee.add", "game.propose", "action",
        "game.propose", "game.dispute", "game.ruling", "game.propose", "game.end",
    ]  # fmt: skip
    # the seated referee's ruling was refused: nothing logged
    dispute, ruling = disputed[7], disputed[8]
    result = {
        "winner": "Axis", "scenario": "AP99", "attacker": "Axis", "tournament": "T", "round": 2,
    }  # fmt: skip
    assert dispute["by"]["name"] == "bob" and dispute["entry"] == 7
    assert dispute["result"] == result and dispute["reason"] == "I held the village"
    assert ruling["by"]["name"] == "ref" and ruling["entry"] == 8
    assert (ruling["matter"], ruling["decision"]) == ("result", "grant")
    assert ruling["result"] == result and ruling["reason"] == "the village fell on turn 6"
    assert disputed[10]["agreed"]["proposed_by"]["name"] == "alice"
    confirmed = entries_of(exports["confirmed"])
    recorded = next(e for e in confirmed if e["kind"] == "game.result")
    assert recorded["by"]["name"] == "alice" and recorded["settled"] == "agreed"
    assert recorded["agreed"]["proposed_by"]["name"] == "bob" and recorded["winner"] == "draw"
    conceded = next(e for e in entries_of(exports["conceded"]) if e["kind"] == "game.result")
    assert (conceded["by"]["name"], conceded["settled"], conceded["winner"]) == (
        "alice", "conceded", "Allied",
    )  # fmt: skip
    assert all(e["v"] == FORMAT_VERSION for e in disputed)
    assert REFUSED[("disputed", DISPUTED[8][1])] == (
        "Only a referee without a seat may rule on a dispute or a claim; you play Axis."
    )
    assert REFUSED[("confirmed", CONFIRMED[4][1])] == (
        "Only the Axis player or a referee without a seat may confirm this proposal."
    )


def test_a_result_a_referee_without_a_seat_confirms_is_the_referees_not_agreed(
    tmp_path: Path,
) -> None:
    """Regression: the organiser confirming Alice's proposed result was logged, replied and
    exported to the league as "agreed by both sides", though Bob never agreed."""
    lines = [
        *CONFIRMED[:3],
        (ALICE, "/game result winner:Axis scenario:FT91 attacker:Axis tournament:T round:4"),
        (REF, "/game confirm entry:4"),
    ]
    text = asyncio.run(play(tmp_path / "by_referee.db", lines))
    recorded = next(e for e in entries_of(text) if e["kind"] == "game.result")
    assert (recorded["by"]["name"], recorded["settled"]) == ("ref", "referee")
    assert recorded["agreed"]["proposed_by"]["name"] == "alice"
    report = verify_text(text, SYSTEMS)
    assert report.ok, report.message
    run = standalone(text, tmp_path)
    assert run.returncode == 0, run.stdout


def test_a_proposal_lapses_when_its_proposer_no_longer_holds_the_seat_it_was_made_for(
    exports: dict[str, str], tmp_path: Path
) -> None:
    """Regression: after the referee gave Alice's Axis seat to Carol, Bob could still confirm
    the result Alice had proposed, and it was recorded "agreed by both sides" though Alice no
    longer spoke for Axis. Her proposals waiting lapse at the reseat, on the record; Bob's late
    confirmation is told so (it was told "Entry 4 is not a proposal waiting for confirmation")."""
    entries = entries_of(exports["reseated"])
    seat = entries[5]
    assert (seat["kind"], seat["player"]["name"], seat["lapsed"]) == ("game.seat", "carol", [4, 5])
    assert REFUSED[("reseated", RESEATED[6][1])] == (  # it says it lapsed, when and why
        "Proposal 4 lapsed at entry 6, when carol took the Axis seat its proposer held; it can "
        "no longer be confirmed (the Axis player may propose it again)."
    )
    recorded = next(e for e in entries if e["kind"] == "game.result")
    assert recorded["agreed"] == {"proposal": 7, "proposed_by": {"id": CAROL.user_id,
                                                                 "name": "carol"}}  # fmt: skip
    reply = table_title(seat)
    assert reply == (
        "carol takes the Axis seat; proposals 4 and 5, made by the Axis seat's former player, lapse"
    )


@pytest.mark.parametrize("name", ["disputed", "confirmed", "conceded", "reseated"])
def test_the_honest_exports_verify_with_both(
    exports: dict[str, str], name: str, tmp_path: Path
) -> None:
    report = verify_text(exports[name], SYSTEMS)
    assert report.ok, report.message
    run = standalone(exports[name], tmp_path)
    assert run.returncode == 0, run.stdout


# --- forgeries: each re-hashed as a forger would, rejected by both verifiers ---------------


def _entry(entries: list[dict[str, Any]], kind: str, n: int = 0) -> dict[str, Any]:
    return [e for e in entries if e["kind"] == kind][n]


def result_alone(entries: list[dict[str, Any]]) -> None:
    """The proposer's result recorded as if nobody needed to confirm it."""
    recorded = _entry(entries, "game.result")
    recorded["by"] = recorded.pop("agreed")["proposed_by"]


def result_as_concession(entries: list[dict[str, Any]]) -> None:
    """The proposer's own win claimed as a concession: a concession names the other side."""
    recorded = _entry(entries, "game.result")
    recorded["by"] = recorded.pop("agreed")["proposed_by"]
    recorded["settled"], recorded["winner"] = "conceded", "Allied"


def result_by_a_spectator(entries: list[dict[str, Any]]) -> None:
    """The proposal confirmed by someone who holds no seat and referees nothing."""
    _entry(entries, "game.result")["by"] = {"id": CAROL.user_id, "name": "carol"}


def result_by_a_referee_said_agreed(entries: list[dict[str, Any]]) -> None:
    """The proposal confirmed by a referee without a seat, said agreed by both sides: Bob, the
    other side's player, never agreed (it is the referee's result)."""
    _entry(entries, "game.result")["by"] = {"id": REF.user_id, "name": "ref"}


def ruling_by_the_seated_referee(entries: list[dict[str, Any]]) -> None:
    _entry(entries, "game.ruling")["by"] = {"id": ALICE.user_id, "name": "alice"}


def ruling_by_a_player(entries: list[dict[str, Any]]) -> None:
    _entry(entries, "game.ruling")["by"] = {"id": BOB.user_id, "name": "bob"}


def ruling_of_another_result(entries: list[dict[str, Any]]) -> None:
    ruling = _entry(entries, "game.ruling")
    ruling["result"] = {**ruling["result"], "winner": "Allied"}


def dispute_by_the_proposer(entries: list[dict[str, Any]]) -> None:
    _entry(entries, "game.dispute")["by"] = {"id": ALICE.user_id, "name": "alice"}


def referee_acts_for_the_other_side_alone(entries: list[dict[str, Any]]) -> None:
    """The seated referee's proposed unit of the other side, as if added alone."""
    action = _entry(entries, "action")
    action["by"] = action.pop("agreed")["proposed_by"]


def referee_ends_alone(entries: list[dict[str, Any]]) -> None:
    end = _entry(entries, "game.end")
    end["by"] = end.pop("agreed")["proposed_by"]


def ruling_under_old_rules(entries: list[dict[str, Any]]) -> None:
    """The seated referee's ruling, claiming the version before anyone needed to agree."""
    ruling = _entry(entries, "game.ruling")
    ruling["by"], ruling["v"] = {"id": ALICE.user_id, "name": "alice"}, 1


def confirmed_after_its_proposer_left(entries: list[dict[str, Any]]) -> None:
    """Bob's confirmation said to be of Alice's result, which lapsed when Carol took her seat."""
    _entry(entries, "game.result")["agreed"] = {
        "proposal": 4,
        "proposed_by": {"id": ALICE.user_id, "name": "alice"},
    }


def confirmed_after_its_proposer_left_unsaid(entries: list[dict[str, Any]]) -> None:
    """The same, the reseat no longer saying which proposals lapsed."""
    confirmed_after_its_proposer_left(entries)
    del _entry(entries, "game.seat", 2)["lapsed"]


def lapse_left_out(entries: list[dict[str, Any]]) -> None:
    """The reseat says only the level lapsed, as if Alice's result still waited."""
    _entry(entries, "game.seat", 2)["lapsed"] = [5]


FORGERIES = {
    "reseated": [
        confirmed_after_its_proposer_left,
        confirmed_after_its_proposer_left_unsaid,
        lapse_left_out,
    ],
    "confirmed": [
        result_alone,
        result_as_concession,
        result_by_a_spectator,
        result_by_a_referee_said_agreed,
    ],
    "disputed": [
        ruling_by_the_seated_referee,
        ruling_by_a_player,
        ruling_of_another_result,
        dispute_by_the_proposer,
        referee_acts_for_the_other_side_alone,
        referee_ends_alone,
        ruling_under_old_rules,
    ],
}


@pytest.mark.parametrize(
    ("name", "forge"),
    [(name, forge) for name, forges in FORGERIES.items() for forge in forges],
    ids=lambda x: getattr(x, "__name__", x),
)
def test_a_forged_result_ruling_or_lone_act_is_rejected_by_both_verifiers(
    exports: dict[str, str], name: str, forge: Any, tmp_path: Path
) -> None:
    forged = reseal(exports[name], forge)
    report = verify_text(forged, SYSTEMS)
    assert not report.ok, forge.__name__
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("MISMATCH at entry"), run.stdout


def test_a_refused_ruling_and_refusals_by_role_say_so_in_one_sentence(tmp_path: Path) -> None:
    lines = [
        *DISPUTED[:8],
        (BOB, "/game result winner:Allied scenario:AP99 attacker:Axis"),
        (REF, "/game end"),
        (REF, "/game rule entry:7 decision:grant reason:x"),
        (REF, '/game rule entry:8 decision:refuse reason:"no one saw the last turn"'),
        (REF, "/game end"),
    ]
    text = asyncio.run(play(tmp_path / "refused.db", lines))
    assert REFUSED[("refused", lines[8][1])] == (
        "The result is disputed (entry 8); a referee without a seat rules on it first "
        "(/game rule entry:8)."
    )
    assert REFUSED[("refused", lines[9][1])] == (
        "Entry 8 waits for a ruling; a referee without a seat rules on it (/game rule entry:8) "
        "before ending the game."
    )
    assert REFUSED[("refused", lines[10][1])] == (
        "Entry 7 is not a dispute or a claim waiting for a ruling; these are: 8."
    )
    logged = entries_of(text)
    ruling = _entry(logged, "game.ruling")
    assert ruling["decision"] == "refuse" and ruling["seq"] == 9
    assert [e["kind"] for e in logged[8:]] == ["game.ruling", "game.end"]
    assert verify_text(text, SYSTEMS).ok


# --- a game played before today ------------------------------------------------------------

WAVE1 = Path(__file__).parent / "exports" / "asl-wave1-hill-621.jsonl"


def test_an_old_export_where_a_referee_who_played_acted_alone_still_verifies(
    tmp_path: Path,
) -> None:
    """The first wave's export: its creator held the Axis seat, set the first phase (both sides)
    and ended the game alone, as referees then might. Its entries are of version 1, checked as
    the bot then allowed; the same entries claiming today's version are refused."""
    text = WAVE1.read_text(encoding="utf-8")
    entries = entries_of(text)
    assert {e["v"] for e in entries} == {1}
    assert entries[4]["by"]["name"] == "you" and entries[4]["sides"] == ["Allied", "Axis"]
    assert standalone(text, tmp_path).returncode == 0

    def today(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            entry["v"] = seats.NO_ONE_ALONE

    relabelled = standalone(reseal(text, today), tmp_path)
    assert relabelled.returncode == 1, relabelled.stdout
    assert relabelled.stdout.startswith("MISMATCH at entry 5: you acts for Allied alone")


def test_game_list_shows_the_organiser_which_results_wait_for_a_ruling(tmp_path: Path) -> None:
    """The dispute of DISPUTED (entry 8), before its ruling: /game list names it on each of the
    game's players and counts it; once ruled, it is no longer listed."""
    db = tmp_path / "listed.db"
    asyncio.run(play(db, DISPUTED[:8]))

    async def listing() -> Reply:
        repo = await open_repository(db)
        try:
            return await GameService(repo, SYSTEMS).handle(PLACE, REF, "list", gc.GameList())
        finally:
            await repo.close()

    listed = asyncio.run(listing())
    assert listed.title == "Active games in this server: 1 (1 with a disputed result)"
    fields = dict(listed.fields)
    assert fields["alice"].endswith("(asl, Axis) — result disputed: /game rule entry:8")
    assert fields["bob"].endswith("(asl, Allied) — result disputed: /game rule entry:8")
    # the referee without a seat rules (the lines before: the same interactions, answered again)
    asyncio.run(play(db, [*DISPUTED[:8], DISPUTED[9]]))
    listed = asyncio.run(listing())
    assert listed.title == "Active games in this server: 1"
    assert "disputed" not in dict(listed.fields)["alice"]
