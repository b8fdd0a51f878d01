"""League play and the VASL-style rolls on the real bot against the fake Discord: /game result
and /game list as players see them, /game league's zip arriving as an attachment (the ASL Player
Ratings CSV with its exact header, every export verified by `referee verify`), `/roll dice:"3 DR"`
by category, and `/stats player:` counting only that player's dice.

One bot serves the module; each test plays in its own channels.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import zipfile
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.bot.test_console import referee
from tests.e2e.conftest import BotProcess, answer, running_bot
from tests.fake_discord import FakeDiscord, Reply, SentInteraction

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TIMEOUT = 30.0
CHANNELS = (
    "league-1", "league-2", "league-3", "batch-1", "notice-2", "decline-1", "decline-2",
    "signed-1",
)  # fmt: skip
HEADER = (
    "TOURNAMENT ID,ROUND NO.,LEAVE BLANK,SCENARIO ID,PLAYER 1 NAME,PLAYER 1 ATTACKER OR DEFENDER,"
    "PLAYER 1 ALLIES OR AXIS,PLAYER 1 RESULT,PLAYER 2 NAME,PLAYER 2 ATTACKER OR DEFENDER,"
    "PLAYER 2 ALLIES OR AXIS,PLAYER 2 RESULT,DATE"
)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with running_bot(tmp_path_factory.mktemp("league"), CHANNELS) as running:
        yield running


async def seated_game(
    discord: FakeDiscord, channel: str, title: str, axis: str, allied: str
) -> None:
    new = await answer(
        discord, ["game", "new"], {"system": "asl", "title": title}, user="ref", channel=channel
    )
    assert not new.ephemeral, new.data
    for side, user in (("Axis", axis), ("Allied", allied)):
        seat = await answer(discord, ["game", "seat"], {"side": side}, user=user, channel=channel)
        assert f"takes the {side} seat" in seat.embeds[0]["title"], seat.data


async def test_results_are_listed_and_the_league_zip_arrives_with_the_csv_and_exports(
    table: tuple[FakeDiscord, BotProcess], tmp_path: Path
) -> None:
    discord, _ = table
    await seated_game(discord, "league-1", "Round 1", axis="alice", allied="bob")
    await seated_game(discord, "league-2", "Round 2", axis="bob", allied="alice")
    await seated_game(discord, "league-3", "Friendly", axis="alice", allied="bob")

    wrong = await answer(
        discord, ["game", "result"], {"winner": "chess", "scenario": "FT91", "attacker": "Axis"},
        user="bob", channel="league-1",
    )  # fmt: skip
    assert wrong.ephemeral and not wrong.embeds, wrong.data
    assert wrong.content == (  # regression: it did not say that draw is a winner too
        "'chess' is neither a side of this game nor a draw; "
        "write winner:Axis, winner:Allied or winner:draw."
    )
    proposed = await answer(
        discord, ["game", "result"],
        {"winner": "axis", "scenario": "FT91", "attacker": "Axis", "tournament": "CASLO_18",
         "round": 1},
        user="alice", channel="league-1",
    )  # fmt: skip
    assert not proposed.ephemeral
    assert proposed.embeds[0]["title"].startswith(
        "#4 alice proposes /game result winner:Axis scenario:FT91"
    ), proposed.embeds[0]["title"]
    first = await answer(discord, ["game", "confirm"], {"entry": 4}, user="bob", channel="league-1")
    assert first.embeds[0]["title"] == (
        "#5 Result of FT91: Axis wins (Axis attacked), agreed by both sides"
    ), first.embeds[0]["title"]
    await answer(
        discord, ["game", "result"],
        {"winner": "draw", "scenario": "AP99", "attacker": "allied", "tournament": "CASLO_18",
         "round": 2},
        user="alice", channel="league-2",
    )  # fmt: skip
    second = await answer(
        discord, ["game", "confirm"], {"entry": 4}, user="bob", channel="league-2"
    )
    assert second.embeds[0]["title"] == (
        "#5 Result of AP99: a draw (Allied attacked), agreed by both sides"
    )
    other = await answer(
        discord, ["game", "result"],
        {"winner": "allied", "scenario": "J1", "attacker": "Axis", "tournament": "FRIENDLIES"},
        user="alice", channel="league-3",
    )  # fmt: skip
    assert other.embeds[0]["title"] == "#4 Result of J1: Allied wins (Axis attacked), conceded"

    listing = await answer(discord, ["game", "list"], user="bob", channel="league-3")
    assert listing.ephemeral
    assert listing.embeds[0]["title"] == "Active games in this server: 3"
    where = {name: discord.channels[name]["id"] for name in ("league-1", "league-2", "league-3")}
    players = {f["name"]: f["value"].splitlines() for f in listing.embeds[0]["fields"]}
    assert sorted(players["alice"]) == sorted(
        [
            f"<#{where['league-1']}> Round 1 (asl, Axis)",
            f"<#{where['league-2']}> Round 2 (asl, Allied)",
            f"<#{where['league-3']}> Friendly (asl, Axis)",
        ]
    )
    assert len(players["bob"]) == 3

    refused = await answer(
        discord, ["game", "league"], {"tournament": "CASLO_18"}, user="alice", channel="league-3"
    )
    assert refused.ephemeral and not refused.files
    assert "Only a server administrator or referee" in refused.text
    unknown = await answer(
        discord, ["game", "league"], {"tournament": "NOPE"}, user="ref", channel="league-3"
    )
    assert unknown.ephemeral and not unknown.files and "NOPE" in unknown.text

    exported = await answer(
        discord, ["game", "league"], {"tournament": "CASLO_18"}, user="ref", channel="league-3"
    )
    assert exported.ephemeral
    assert exported.embeds[0]["title"] == "CASLO_18: 2 results and their games' exports"
    (upload,) = exported.files
    assert upload.filename == "CASLO_18-results.zip"
    assert exported.message is not None
    assert [a["filename"] for a in exported.message["attachments"]] == ["CASLO_18-results.zip"]
    with zipfile.ZipFile(io.BytesIO(upload.data)) as archive:
        names = archive.namelist()
        table_text = archive.read("results.csv").decode("utf-8")
        exports = {name: archive.read(name) for name in names if name != "results.csv"}
    times = exports.pop("response_times.csv").decode("utf-8")
    settled = exports.pop("settlements.csv").decode("utf-8")
    assert [row[5:7] for row in csv.reader(io.StringIO(settled))][1:] == [
        ["agreed", "bob"], ["agreed", "bob"],
    ]  # fmt: skip
    assert names[:3] == ["results.csv", "response_times.csv", "settlements.csv"]
    assert len(exports) == 2
    assert [row[4:6] for row in csv.reader(io.StringIO(times))][1:] == [
        ["Axis", "alice"], ["Allied", "bob"], ["Axis", "bob"], ["Allied", "alice"],
    ]  # fmt: skip
    assert table_text.splitlines()[0] == HEADER
    today = datetime.datetime.now(datetime.UTC).date()
    rows = sorted(list(csv.reader(io.StringIO(table_text)))[1:], key=lambda row: row[1])
    dates = {datetime.date.fromisoformat(row[12]) for row in rows}
    assert dates <= {today, today - datetime.timedelta(days=1)}, dates  # a run across midnight
    assert [row[:12] for row in rows] == [
        ["CASLO_18", "1", "", "FT91", "alice", "attacker", "axis", "win",
         "bob", "defender", "allies", "lost"],
        ["CASLO_18", "2", "", "AP99", "bob", "defender", "axis", "draw",
         "alice", "attacker", "allies", "draw"],
    ]  # fmt: skip
    for name, content in exports.items():
        assert re.fullmatch(r"game-[0-9a-f]{32}\.jsonl", name), name
        path = tmp_path / name
        path.write_bytes(content)
        verified = referee("verify", str(path))
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert b'"game.result"' in content


def faces(reply: Reply) -> list[int]:
    """The colored and white die of every DR line of a roll's embed."""
    found = re.findall(r"colored \*\*(\d)\*\*, white \*\*(\d)\*\*", reply.embeds[0]["description"])
    return [int(face) for pair in found for face in pair]


async def test_a_batch_by_category_and_the_stats_of_one_player(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "batch-1"
    await seated_game(discord, channel, "Batches", axis="alice", allied="bob")
    batch = await answer(
        discord, ["roll"], {"dice": "3 DR", "category": "IFT", "reason": "3 attacks"},
        user="bob", channel=channel,
    )  # fmt: skip
    assert not batch.ephemeral
    lines = batch.embeds[0]["description"].splitlines()
    assert len(lines) == 3 and all(line.startswith("🎲 **IFT DR ") for line in lines), lines
    bob_faces = faces(batch)
    assert len(bob_faces) == 6
    totals = {f["name"]: f["value"] for f in batch.embeds[0]["fields"]}["Totals"]
    expected = [bob_faces[i] + bob_faces[i + 1] for i in range(0, 6, 2)]
    assert totals == ", ".join(str(total) for total in expected), totals
    twice = await answer(
        discord, ["roll"], {"dice": "3 DR", "count": 2}, user="bob", channel=channel
    )
    assert twice.ephemeral and 'dice:"3 DR"' in twice.text  # one sentence, nothing rolled
    alice = await answer(
        discord, ["roll"], {"category": "MC", "count": 2}, user="alice", channel=channel
    )
    assert len(faces(alice)) == 4
    more = await answer(discord, ["roll"], {"category": "IFT"}, user="alice", channel=channel)
    alice_ift = faces(more)

    stats = await answer(
        discord, ["stats"], {"player": "bob", "category": "IFT"}, user="alice", channel=channel
    )
    assert stats.ephemeral
    embed = stats.embeds[0]
    assert embed["title"] == "IFT dice of bob in this channel"
    counted = Counter(bob_faces)
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["d6: 6 dice"].splitlines()[0] == " ".join(
        f"{face}:{counted[face]}" for face in range(1, 7)
    )
    everyone = await answer(discord, ["stats"], {"category": "IFT"}, user="alice", channel=channel)
    assert any(f["name"] == "d6: 8 dice" for f in everyone.embeds[0]["fields"])
    assert len(alice_ift) == 2
    by_category = await answer(discord, ["stats"], {"player": "alice"}, user="bob", channel=channel)
    category_lines = {f["name"]: f["value"] for f in by_category.embeds[0]["fields"]}
    assert category_lines["By category"].splitlines() == [
        f"IFT: 1 DR, mean {sum(alice_ift):.2f}",
        f"MC: 2 DR, mean {sum(faces(alice)) / 2:.2f}",
    ]
    times = await answer(discord, ["game", "times"], user="bob", channel=channel)
    assert times.ephemeral and times.embeds[0]["title"] == "Batches: response times"
    seats = {f["name"]: f["value"] for f in times.embeds[0]["fields"]}
    assert list(seats) == ["alice (Axis)", "bob (Allied)"]
    assert re.fullmatch(
        r"1 response · median (\d+) s · longest \1 s · waiting in all \1 s", seats["alice (Axis)"]
    ), seats  # alice answered bob's batch within seconds; bob has not answered alice yet
    assert seats["bob (Allied)"] == "0 responses"
    server = await answer(
        discord, ["game", "times"], {"scope": "server"}, user="bob", channel=channel
    )
    assert server.ephemeral and "Only a server administrator or referee" in server.content


async def test_the_defensive_fire_phase_mentions_only_the_defenders_player(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """Regression: the DFPh's notice named the ATTACKER's player, who does not fire in it (A3)."""
    discord, _ = table
    channel = "notice-2"
    await seated_game(discord, channel, "Final Fire", axis="alice", allied="bob")
    phase = {"side": "Axis", "phase": "mph"}
    moved = await answer(discord, ["asl", "phase"], phase, user="ref", channel=channel)
    alice, bob = discord.people["alice"].id, discord.people["bob"].id
    assert [str(u) for u in moved.data["allowed_mentions"]["users"]] == [alice]
    final = await answer(discord, ["asl", "phase"], {}, user="alice", channel=channel)
    assert final.content == (
        f"<@{bob}>, the Allied player acts next: Defensive Fire Phase of Axis (Player Turn 1)"
    ), final.data
    assert [str(u) for u in final.data["allowed_mentions"]["users"]] == [bob]
    assert final.data["allowed_mentions"]["parse"] == []


async def test_a_declined_proposal_cannot_be_confirmed_with_its_button(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "decline-1"
    await seated_game(discord, channel, "Refused", axis="alice", allied="bob")
    level = {"side": "Axis", "level": 3}
    proposal = await answer(discord, ["asl", "level"], level, user="bob", channel=channel)
    assert proposal.embeds[0]["title"].startswith("#4 bob proposes /asl level"), proposal.data
    confirm, _ = proposal.custom_ids
    refused = await answer(
        discord, ["game", "decline"], {"entry": 4}, user="ref", channel="league-1"
    )
    assert refused.ephemeral  # another channel's game has no proposal 4
    declined = await answer(
        discord, ["game", "decline"], {"entry": 4, "reason": "level 2, as agreed"},
        user="alice", channel=channel,
    )  # fmt: skip
    assert not declined.ephemeral
    assert declined.embeds[0]["title"] == "#5 Proposal 4 declined: level 2, as agreed"
    assert proposal.message is not None
    sent = await discord.click(confirm, proposal.message["id"], user="alice", channel=channel)
    late = await sent.next_reply(TIMEOUT)
    assert late.ephemeral
    assert late.content == "Entry 4 is not a proposal waiting for confirmation."


async def test_the_proposer_withdraws_with_the_decline_button_which_settles_both(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "decline-2"
    await seated_game(discord, channel, "Withdrawn", axis="alice", allied="bob")
    level = {"side": "Axis", "level": 2}
    proposal = await answer(discord, ["asl", "level"], level, user="bob", channel=channel)
    confirm, decline = proposal.custom_ids
    assert proposal.message is not None
    message = proposal.message["id"]
    withdrawn = await click_result(
        await discord.click(decline, message, user="bob", channel=channel)
    )
    assert withdrawn.embeds[0]["title"] == "#5 Proposal 4 withdrawn", withdrawn.data
    used, settled = discord.messages[message]["components"][0]["components"]
    assert used["disabled"] and used["label"] == "Confirm #4"
    assert settled["disabled"] and settled["label"] == "Decline #4 ✓ #5"
    with pytest.raises(AssertionError, match="is disabled"):
        await discord.click(confirm, message, user="alice", channel=channel)


async def click_result(sent: SentInteraction) -> Reply:
    """The result a successful click posts, after the click's own message was updated."""
    while True:
        reply = await sent.next_reply(TIMEOUT)
        if reply.kind == "followup" or (reply.kind == "callback" and reply.type == 4):
            return reply


async def test_a_league_game_from_a_players_new_game_to_a_signed_result(
    table: tuple[FakeDiscord, BotProcess], tmp_path: Path
) -> None:
    """Alice starts the game and plays Axis: she is its referee, and the reply says what that
    means. Her set-up of Bob's side is only proposed: Bob confirms one with its button and
    declines another. Her result is a proposal Bob disputes; her ruling on it is refused (she
    plays); ref, a referee without a seat, rules; the league's zip carries the ruled result and
    says so, and the game's export verifies."""
    discord, _ = table
    channel = "signed-1"
    new = await answer(
        discord, ["game", "new"], {"system": "asl", "title": "Signed"}, user="alice",
        channel=channel,
    )  # fmt: skip
    fields = {f["name"]: f["value"] for f in new.embeds[0]["fields"]}
    assert fields["Referee"] == (
        "alice (the creator): for every side without a seat; once seated, for the other side "
        "only by proposals its player confirms"
    )
    for side, user in (("Axis", "alice"), ("Allied", "bob")):
        await answer(discord, ["game", "seat"], {"side": side}, user=user, channel=channel)

    async def proposal_of(options: dict[str, object]) -> Reply:
        reply = await answer(discord, ["asl", "unit", "add"], options, user="alice",
                             channel=channel)  # fmt: skip
        assert " alice proposes /asl unit add name:" in reply.embeds[0]["title"], reply.data
        assert "the Allied player confirms" in reply.embeds[0]["title"]
        assert reply.message is not None
        return reply

    squad = {"side": "Allied", "kind": "squad", "quality": "4-4-7"}
    kept = await proposal_of({"name": "R1", **squad})
    dropped = await proposal_of({"name": "R2", **squad})
    confirm, _ = kept.custom_ids
    assert kept.message is not None and dropped.message is not None
    refused = await discord.click(confirm, kept.message["id"], user="alice", channel=channel)
    assert (await refused.next_reply(TIMEOUT)).content == (
        "The other side confirms a proposal, not its proposer."
    )
    done = await click_result(
        await discord.click(confirm, kept.message["id"], user="bob", channel=channel)
    )
    assert done.embeds[0]["title"] == "#6 /asl unit add — Allied", done.data
    _, decline = dropped.custom_ids
    declined = await click_result(
        await discord.click(decline, dropped.message["id"], user="bob", channel=channel)
    )
    assert declined.embeds[0]["title"] == "#7 Proposal 5 declined", declined.data
    status = await answer(discord, ["game", "status"], user="bob", channel=channel)
    who = {f["name"]: f["value"] for f in status.embeds[0]["fields"]}["Who acts for whom"]
    assert who.splitlines()[:2] == [
        "alice: Axis; Allied only by proposals its player confirms (a referee who plays)",
        "bob: Allied",
    ], who

    result = {"winner": "Axis", "scenario": "FT91", "attacker": "Axis", "tournament": "SIGNED"}
    proposed = await answer(discord, ["game", "result"], result, user="alice", channel=channel)
    assert proposed.embeds[0]["title"].endswith(
        "the Allied player confirms with /game confirm entry:8 or disputes it with "
        "/game decline entry:8"
    ), proposed.data
    assert proposed.message is not None
    buttons = discord.messages[proposed.message["id"]]["components"][0]["components"]
    assert [b["label"] for b in buttons] == ["Confirm #8", "Dispute or withdraw #8"]
    _, dispute = proposed.custom_ids
    disputed = await click_result(
        await discord.click(dispute, proposed.message["id"], user="bob", channel=channel)
    )
    assert disputed.embeds[0]["title"] == (
        "#9 bob disputes the result of proposal 8; a referee without a seat rules on it with "
        "/game rule entry:9"
    ), disputed.data
    ruling = {"entry": 9, "decision": "grant", "reason": "R1 broke on turn 5"}
    own = await answer(discord, ["game", "rule"], ruling, user="alice", channel=channel)
    assert own.ephemeral and own.content == (
        "Only a referee without a seat may rule on a dispute or a claim; you play Axis."
    )
    ended = await answer(discord, ["game", "end"], user="ref", channel=channel)
    assert ended.ephemeral and "Entry 9 waits for a ruling" in ended.content
    ruled = await answer(discord, ["game", "rule"], ruling, user="ref", channel=channel)
    assert not ruled.ephemeral
    assert ruled.embeds[0]["title"] == (
        "#10 Ruling on entry 9: granted — Axis wins FT91 (Axis attacked): R1 broke on turn 5"
    ), ruled.data

    exported = await answer(
        discord, ["game", "league"], {"tournament": "SIGNED"}, user="ref", channel=channel
    )
    assert exported.embeds[0]["title"] == (
        "SIGNED: 1 result (1 ruled by a referee) and their games' exports"
    )
    (upload,) = exported.files
    with zipfile.ZipFile(io.BytesIO(upload.data)) as archive:
        rows = list(csv.reader(io.StringIO(archive.read("results.csv").decode("utf-8"))))
        settled = list(csv.reader(io.StringIO(archive.read("settlements.csv").decode("utf-8"))))
        (name,) = [n for n in archive.namelist() if n.startswith("game-")]
        (tmp_path / name).write_bytes(archive.read(name))
    assert rows[1][3:12] == [
        "FT91", "alice", "attacker", "axis", "win", "bob", "defender", "allies", "lost",
    ]  # fmt: skip
    assert settled[1][4:] == ["Axis wins", "ruled", "ref", "10", "R1 broke on turn 5"]
    verified = referee("verify", str(tmp_path / name))
    assert verified.returncode == 0, verified.stdout + verified.stderr
