"""League play: /game list and /game league (the ASL Player Ratings upload CSV)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Mapping
from typing import Any

from bot.errors import NotAReferee
from bot.log.export import export_game
from bot.models import Actor, Place, Reply, ReplyFile
from bot.service.proposals import Proposals
from bot.storage import GameRow
from bot.table import commands as gc
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


def league_zip(rows: list[list[str]], exports: list[tuple[str, str]]) -> bytes:
    """``results.csv`` (header and rows) and every game's export, in one zip with fixed times."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(RATINGS_HEADER)
    writer.writerows(rows)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in [("results.csv", text.getvalue()), *exports]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content.encode("utf-8"))
    return buffer.getvalue()


def _file_safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text) or "league"


class League(Proposals):
    """/game list and /game league."""

    async def _list(self, place: Place) -> Reply:
        """The server's active games by player: where each plays, what and which side."""
        games = [g for g in await self.repo.games_in_guild(place.guild_id) if g.status == "active"]
        by_player: dict[str, list[str]] = {}
        for game in games:
            for side, player in game.table["seats"].items():
                if player:
                    by_player.setdefault(player["name"], []).append(
                        f"<#{game.channel_id}> {game.title} ({game.system}, {side})"
                    )
        fields = tuple((name, "\n".join(lines)) for name, lines in sorted(by_player.items()))
        return Reply(
            command="/game list",
            title=f"Active games in this server: {len(games)}",
            fields=fields or (("Players", "nobody is seated in an active game"),),
            scripted=self.script is not None,
            ephemeral=True,
        )

    async def _league(self, place: Place, actor: Actor, command: gc.GameLeague) -> Reply:
        """The tournament's recorded results as the ASL Player Ratings upload CSV, and each of
        its games' exports, in one zip file (server administrators and referees)."""
        if not actor.is_admin:
            raise NotAReferee("Only a server administrator or referee exports a league's results.")
        tournament = command.tournament.strip()
        rows: list[list[str]] = []
        exports: list[tuple[str, str]] = []
        for game in await self.repo.games_in_guild(place.guild_id):
            result = game.table.get("result")
            if not result or result.get("tournament") != tournament:
                continue
            entries = await self.repo.entries(game.id)
            recorded = [e.data() for e in entries if e.kind == "game.result"][-1]
            rows.append(ratings_row(game, result, recorded["at"][:10]))
            exports.append((f"game-{game.public_id}.jsonl", await export_game(self.repo, game)))
        if not rows:
            raise InvalidInput(
                f"No game of this server has a result recorded for {tournament!r} "
                "(/game result tournament:…)."
            )
        content = league_zip(rows, exports)
        return Reply(
            command="/game league",
            title=f"{tournament}: {len(rows)} results and their games' exports",
            scripted=self.script is not None,
            ephemeral=True,
            file=ReplyFile(filename=f"{_file_safe(tournament)}-results.zip", content=content),
        )
