"""League play: /game list, /game times (each seat's response times) and /game league (the ASL
Player Ratings upload CSV of the settled results, the response times, how each result was
settled, every game's export)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Mapping
from typing import Any

from bot.errors import NotAReferee
from bot.log.export import export_game
from bot.models import Actor, Place, Reply, ReplyFile
from bot.service.change import Live
from bot.service.core import Core
from bot.service.handlers import read
from bot.stats.times import TIMES_HEADER, SeatTimes, response_times, seconds, times_line
from bot.storage import GameRow
from bot.table import commands as gc
from bot.table.reminders import ball_of, clock_lines, now_quietly
from bot.table.results import RESULT
from bot.table.rulings import awaiting
from rules_core.errors import InvalidInput

RATINGS_HEADER = (
    "TOURNAMENT ID", "ROUND NO.", "LEAVE BLANK", "SCENARIO ID",
    "PLAYER 1 NAME", "PLAYER 1 ATTACKER OR DEFENDER", "PLAYER 1 ALLIES OR AXIS", "PLAYER 1 RESULT",
    "PLAYER 2 NAME", "PLAYER 2 ATTACKER OR DEFENDER", "PLAYER 2 ALLIES OR AXIS", "PLAYER 2 RESULT",
    "DATE",
)  # fmt: skip
"""The header row of the ASL Player Ratings results upload, exactly as its sample file has it."""


def ratings_row(game: GameRow, result: Mapping[str, Any], date: str) -> list[str]:
    """One game's row of the ASL Player Ratings upload: the two seated players, who attacked,
    Axis or Allies where the sides are called so, win/lost/draw, and the ISO date."""
    cells = [str(result["tournament"]), str(result["round"]), "", str(result["scenario"])]
    for side in game.table["sides"][:2]:
        player = game.table["seats"].get(side)
        role = "attacker" if side == result["attacker"] else "defender"
        camp = {"axis": "axis", "allied": "allies", "allies": "allies"}.get(side.lower(), "")
        outcome = (
            "draw"
            if result["winner"] == "draw"
            else ("win" if side == result["winner"] else "lost")
        )
        cells += [player["name"] if player else "", role, camp, outcome]
    return [*cells, date]


def times_rows(game: GameRow, result: Mapping[str, Any], times: list[SeatTimes]) -> list[list[str]]:
    """One game's rows of ``response_times.csv``: one per seat and player, in whole seconds."""
    return [
        [
            str(result["tournament"]), str(result["round"]), str(result["scenario"]),
            game.public_id, seat.side, seat.player, str(seat.responses),
            seconds(seat.median), seconds(seat.longest), seconds(seat.total),
            str(seat.missed), str(seat.extensions),
        ]
        for seat in times
    ]  # fmt: skip


def _csv(header: tuple[str, ...], rows: list[list[str]]) -> str:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[spreadsheet_safe(cell) for cell in row] for row in rows])
    return text.getvalue()


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula when a cell begins with it."""


def spreadsheet_safe(cell: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula: a player's Discord name, a
    scenario or tournament id that starts like a formula (``=HYPERLINK(…)``) gets a leading ``'``
    (the usual defence against formula injection in CSV files); numbers stay as they are.

    >>> spreadsheet_safe("=SUM(A1:A9)"), spreadsheet_safe("@bob"), spreadsheet_safe("-3")
    ("'=SUM(A1:A9)", "'@bob", '-3')
    """
    if cell.startswith(FORMULA_START) and not _is_number(cell):
        return "'" + cell
    return cell


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


SETTLEMENTS_HEADER = (
    "tournament", "round", "scenario", "game", "result", "settled", "settled_by", "entry",
    "reason",
)  # fmt: skip
"""The header of ``settlements.csv``: how each result was settled (``settled``: ``agreed``,
``conceded``, ``referee``, ``ruled`` — by a referee without a seat, on a dispute —, or
``one_side`` for a result recorded before results needed both sides), by whom, at which entry,
and a ruling's reason (for a forfeit's result, the forfeit's ruling: ``forfeit granted at entry
N: …``)."""


def settlement_row(
    game: GameRow, result: Mapping[str, Any], entries: Mapping[int, Mapping[str, Any]]
) -> list[str]:
    """One game's row of ``settlements.csv``."""
    settled = str(result.get("settled", "one_side"))
    entry = result.get("entry")
    logged = entries.get(int(entry)) if entry is not None else None
    by = result["by"]["name"] if "by" in result else ""
    reason = str(logged["reason"]) if logged and logged["kind"] == "game.ruling" else ""
    forfeit = game.table.get("forfeit")
    if forfeit and forfeit["side"] == result["winner"]:
        # the winner's by a referee's ruling on a forfeit claim: the ruling says why
        ruling = entries.get(int(forfeit["entry"])) or {}
        reason = f"forfeit granted at entry {forfeit['entry']}: {ruling.get('reason', '')}"
    outcome = "draw" if result["winner"] == "draw" else f"{result['winner']} wins"
    return [
        str(result["tournament"]), str(result["round"]), str(result["scenario"]),
        game.public_id, outcome, settled, by, str(entry or ""), reason,
    ]  # fmt: skip


def league_zip(
    rows: list[list[str]],
    exports: list[tuple[str, str]],
    times: list[list[str]] | None = None,
    settlements: list[list[str]] | None = None,
) -> bytes:
    """``results.csv`` (header and rows), ``response_times.csv`` (one row per game and seat),
    ``settlements.csv`` (how each result was settled) and every game's export, in one zip with
    fixed times."""
    files = [("results.csv", _csv(RATINGS_HEADER, rows))]
    files.append(("response_times.csv", _csv(TIMES_HEADER, times or [])))
    files.append(("settlements.csv", _csv(SETTLEMENTS_HEADER, settlements or [])))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in [*files, *exports]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content.encode("utf-8"))
    return buffer.getvalue()


def _file_safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text) or "league"


@read(gc.GameList)
async def game_list(core: Core, place: Place, actor: Actor, command: gc.GameList) -> Reply:
    """The server's active games by player: where each plays, what and which side, and whether
    its result is disputed (an organiser's list of the rulings waiting)."""
    games = [g for g in await core.repo.games_in_guild(place.guild_id) if g.status == "active"]
    by_player: dict[str, list[str]] = {}
    disputed = 0
    for game in games:
        dispute = awaiting(game.table, RESULT)
        disputed += bool(dispute)
        waiting = f" — result disputed: /game rule entry:{dispute[0]['entry']}" if dispute else ""
        clock = await _waiting(core, game)
        for side in game.table["sides"]:  # the game's order (storage may sort the seats' keys)
            if player := game.table["seats"].get(side):
                line = f"<#{game.channel_id}> {game.title} ({game.system}, {side}){waiting}"
                if clock is not None and clock[0] == side:
                    line += f" — {clock[1]}"
                by_player.setdefault(player["name"], []).append(line)
    fields = tuple((name, "\n".join(lines)) for name, lines in sorted(by_player.items()))
    return Reply(
        command="/game list",
        title=f"Active games in this server: {len(games)}"
        + (f" ({disputed} with a disputed result)" if disputed else ""),
        fields=fields or (("Players", "nobody is seated in an active game"),),
        scripted=core.scripted,
        ephemeral=True,
    )


async def _waiting(core: Core, game: GameRow) -> tuple[str, str] | None:
    """In a game with a deadline: the side to act, and how long the ball has been in its court
    and when its deadline falls, in words."""
    if not game.table.get("clock"):
        return None
    forfeit = game.table.get("forfeit")
    if forfeit:  # granted: the deadlines stopped there
        return forfeit["against"], f"lost by forfeit (#{forfeit['entry']})"
    system = core.system(game.system)
    live = Live(row=game, state=system.parse_state(game.state_json), system=system)
    found = await ball_of(core, live)
    if found is None:
        return None
    ball, steps = found
    _, now = now_quietly(core)
    lines = clock_lines(game, ball, steps, now)
    waited = lines[0].split(", for ", 1)[-1]
    return ball.side, f"to act for {waited}; {lines[1][0].lower()}{lines[1][1:]}"


@read(gc.GameLeague)
async def league(core: Core, place: Place, actor: Actor, command: gc.GameLeague) -> Reply:
    """The tournament's settled results as the ASL Player Ratings upload CSV, how each was
    settled, and each of its games' exports, in one zip file (server administrators and
    referees). A result proposed and not yet confirmed, or disputed and not yet ruled on, is not
    the game's result, so it is not there."""
    if not actor.is_admin:
        raise NotAReferee("Only a server administrator or referee exports a league's results.")
    tournament = command.tournament.strip()
    rows: list[list[str]] = []
    times: list[list[str]] = []
    settlements: list[list[str]] = []
    exports: list[tuple[str, str]] = []
    for game in await core.repo.games_in_guild(place.guild_id):
        result = game.table.get("result")
        if not result or result.get("tournament") != tournament:
            continue
        entries = {e.seq: e.data() for e in await core.repo.entries(game.id)}
        settling = entries.get(int(result.get("entry", 0))) or next(
            e for e in reversed(entries.values()) if e["kind"] == "game.result"
        )  # a result recorded before results needed both sides: its entry
        rows.append(ratings_row(game, result, settling["at"][:10]))
        times += times_rows(game, result, response_times(entries.values()))
        settlements.append(settlement_row(game, result, entries))
        exports.append((f"game-{game.public_id}.jsonl", await export_game(core.repo, game)))
    if not rows:
        raise InvalidInput(
            f"No game of this server has a settled result for {tournament!r} "
            "(/game result tournament:…, confirmed by the other side)."
        )
    content = league_zip(rows, exports, times, settlements)
    ruled = sum(1 for row in settlements if row[5] == "ruled")
    return Reply(
        command="/game league",
        title=f"{tournament}: {len(rows)} result{'' if len(rows) == 1 else 's'} "
        + (f"({ruled} ruled by a referee) " if ruled else "")
        + "and their games' exports",
        scripted=core.scripted,
        ephemeral=True,
        file=ReplyFile(filename=f"{_file_safe(tournament)}-results.zip", content=content),
    )


@read(gc.GameTimes)
async def times(core: Core, place: Place, actor: Actor, command: gc.GameTimes) -> Reply:
    """Each seat's responses, median, longest and total wait: this channel's game, or every
    active game of the server (server administrators and referees)."""
    if command.scope == "server":
        if not actor.is_admin:
            raise NotAReferee(
                "Only a server administrator or referee sees the times of every game; "
                "/game times alone shows this channel's."
            )
        games = [g for g in await core.repo.games_in_guild(place.guild_id) if g.status == "active"]
        listed: list[tuple[str, str]] = []
        for game in games:
            times = response_times(e.data() for e in await core.repo.entries(game.id))
            lines = [f"{t.player} ({t.side}): {times_line(t)}" for t in times] or ["no seats"]
            listed.append((game.title, "\n".join([f"<#{game.channel_id}>", *lines])))
        return Reply(
            command="/game times",
            title=f"Response times of the active games in this server: {len(games)}",
            fields=tuple(listed) or (("Games", "no active game"),),
            scripted=core.scripted,
            ephemeral=True,
        )
    row = await core.readable(place)
    times = response_times(e.data() for e in await core.repo.entries(row.id))
    fields = tuple((f"{t.player} ({t.side})", times_line(t)) for t in times)
    return _times_listing(core, row, fields or (("Seats", "nobody has taken a seat"),))


def _times_listing(core: Core, row: GameRow, fields: tuple[tuple[str, str], ...]) -> Reply:
    return Reply(
        command="/game times",
        title=f"{row.title}: response times",
        game_title=row.title,
        system=row.system,
        game_id=row.public_id,
        seq=row.head_seq,
        fields=fields,
        commitment=row.commitment,
        epoch=row.epoch,
        scripted=core.scripted,
        ephemeral=True,
    )
