"""Sealed notes (issue 22 item 5): sealed, played on, revealed, exported.

A player seals hidden text with the bot (``/game seal text:``) or seals a commitment they
computed themselves (``/game seal commitment:``); only the commitment is posted and logged. Before
its reveal no output carries the text — no reply (as the console prints it, as Discord's embed
shows it, as ``--json`` gives it), no status, no board, no log page, no export; ``/game reveal``
posts it, and ``/game end`` reveals every note the bot holds. Both verifiers and the offline page
accept the honest export and refuse a revealed text that differs from its commitment.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.errors import NotYourSide
from bot.log import verify_dice
from bot.log.export import export_game
from bot.log.verify import verify_text
from bot.models import Actor, Place, Reply
from bot.render.embed import render_embed
from bot.render.text import render_text
from bot.service.game_service import GameService
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from bot.table.sealed import note_commitment
from rules_core.asl.actions import AddUnit
from rules_core.errors import InvalidInput
from tests.bot.test_verify_forgery import SYSTEMS, reseal, standalone

HERE = Place(guild_id=7, channel_id=8)
REF = Actor(user_id=1, name="ref")
ALICE = Actor(user_id=2, name="alice")
BOB = Actor(user_id=3, name="bob")
SECRET = "HIP: 4-6-7 A and 8-1 leader in K4, concealed"
ORDERS = "Bob's orders: hold the village, no counterattack before turn 4"
BOB_SALT = "0123456789abcdef" * 2


def embed_text(reply: Reply) -> str:
    embed = render_embed(reply)
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    parts += [f"{field.name} {field.value}" for field in embed.fields]
    return "\n".join(parts)


class Table:
    """One game played through the service; every output it gave, as shown anywhere."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.service = GameService(repo)
        self.outputs: list[str] = []
        self.count = 0

    async def do(self, actor: Actor, command: Any) -> Reply:
        self.count += 1
        reply = await self.service.handle(HERE, actor, f"i{self.count}", command)
        self.shown(reply)
        return reply

    def shown(self, reply: Reply) -> None:
        self.outputs += [render_text(reply), embed_text(reply), json.dumps(reply.to_json())]
        if reply.file is not None:
            self.outputs.append(reply.file.content.decode("utf-8"))

    async def everything(self) -> None:
        """Every read a spectator may ask for: status, log, board, export."""
        await self.do(REF, gc.GameStatus())
        await self.do(REF, gc.GameLog(last=50))
        await self.do(ALICE, gc.GameBoard(on=True))
        await self.do(REF, gc.GameExport())
        board = await self.service.board_of(HERE)
        assert board is not None
        self.shown(board[0])

    async def export(self) -> str:
        row = await self.repo.latest_game(HERE.guild_id, HERE.channel_id)
        assert row is not None
        return await export_game(self.repo, row)


async def play(db: Path) -> tuple[Table, list[str], str]:
    """Seal, play on, read everything, reveal Bob's, end (the bot reveals Alice's); the outputs
    before any reveal, and the final export."""
    table = Table(await open_repository(db))
    await table.do(REF, gc.GameNew(system="asl", title="Sealed"))
    await table.do(ALICE, gc.GameSeat(side="Axis"))
    await table.do(BOB, gc.GameSeat(side="Allied"))
    sealed = await table.do(ALICE, gc.GameSeal(text=SECRET))
    assert sealed.seq == 4 and sealed.anchor is not None
    commitment = note_commitment(BOB_SALT, ORDERS)
    await table.do(BOB, gc.GameSeal(commitment=commitment))
    await table.do(REF, AddUnit(name="A", side="Axis", kind="squad", quality="4-6-7"))
    await table.do(ALICE, gc.RollDice(dice="DR", reason="Sniper check"))
    await table.everything()
    before = list(table.outputs)
    await table.do(BOB, gc.GameReveal(entry=5, text=ORDERS, salt=BOB_SALT))
    ended = await table.do(REF, gc.GameEnd())
    assert ("Note sealed at entry 4", SECRET) in ended.fields
    return table, before, await table.export()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str], str]:
    async def run() -> tuple[list[str], list[str], str]:
        table, before, text = await play(tmp_path_factory.mktemp("sealed") / "g.db")
        await table.repo.close()
        return before, table.outputs, text

    return asyncio.run(run())


def test_no_output_before_the_reveal_holds_the_sealed_text(
    played: tuple[list[str], list[str], str],
) -> None:
    before, after, _ = played
    assert len(before) > 20
    for output in before:
        assert SECRET not in output and ORDERS not in output
        assert "HIP:" not in output and BOB_SALT not in output
    assert any("Sealed notes" in o and "#4 alice: sealed (held by the bot)" in o for o in before)
    shown = "\n".join(after[len(before) :])
    assert ORDERS in shown and SECRET in shown  # revealed by Bob, then by the bot at the end


def test_the_log_holds_commitments_and_the_reveals_that_match_them(
    played: tuple[list[str], list[str], str],
) -> None:
    _, _, text = played
    entries = [json.loads(line) for line in verify_dice.split_lines(text)[1:]]
    seal, own = entries[3], entries[4]
    assert (seal["kind"], seal["held"], own["held"]) == ("game.seal", True, False)
    assert set(seal) >= {"commitment", "held"} and "text" not in seal and "salt" not in seal
    assert own["commitment"] == hashlib.sha256(f"{BOB_SALT}\n{ORDERS}".encode()).hexdigest()
    reveal = next(e for e in entries if e["kind"] == "game.reveal")
    assert (reveal["entry"], reveal["text"], reveal["by"]["id"]) == (5, ORDERS, BOB.user_id)
    (note,) = entries[-1]["revealed_notes"]
    assert note["entry"] == 4 and note["text"] == SECRET
    assert note_commitment(note["salt"], SECRET) == seal["commitment"]


def forged_reveal(entries: list[dict[str, Any]]) -> None:
    next(e for e in entries if e["kind"] == "game.reveal")["text"] = ORDERS.replace("4", "2")


def forged_end(entries: list[dict[str, Any]]) -> None:
    entries[-1]["revealed_notes"][0]["text"] = SECRET.replace("K4", "K5")


def hidden_at_end(entries: list[dict[str, Any]]) -> None:
    del entries[-1]["revealed_notes"]


def revealed_by_another(entries: list[dict[str, Any]]) -> None:
    reveal = next(e for e in entries if e["kind"] == "game.reveal")
    reveal["by"] = {"id": ALICE.user_id, "name": "alice"}


FORGERIES = {
    "a revealed text that is not the one sealed": forged_reveal,
    "a note revealed at the end that is not the one sealed": forged_end,
    "a note the bot held left unrevealed at the end": hidden_at_end,
    "a note revealed by someone who did not seal it": revealed_by_another,
}


def test_both_verifiers_accept_the_honest_export(
    played: tuple[list[str], list[str], str], tmp_path: Path
) -> None:
    _, _, text = played
    report = verify_text(text, SYSTEMS)
    assert report.ok, report.message
    assert "  sealed notes: 2" in report.message
    run = standalone(text, tmp_path)
    assert run.returncode == 0 and "  sealed notes: 2" in run.stdout, run.stdout


@pytest.mark.parametrize("what", list(FORGERIES))
def test_both_verifiers_refuse_a_reveal_that_is_not_the_note_sealed(
    played: tuple[list[str], list[str], str], tmp_path: Path, what: str
) -> None:
    forged = reseal(played[2], FORGERIES[what])
    report = verify_text(forged, SYSTEMS)
    assert not report.ok, what
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("MISMATCH"), (what, run.stdout)


def test_an_active_game_says_its_sealed_notes_prove_nothing_yet(tmp_path: Path) -> None:
    async def run() -> str:
        table = Table(await open_repository(tmp_path / "a.db"))
        try:
            await table.do(REF, gc.GameNew(system="asl"))
            await table.do(ALICE, gc.GameSeat(side="Axis"))
            await table.do(ALICE, gc.GameSeal(text=SECRET))
            return await table.export()
        finally:
            await table.repo.close()

    text = asyncio.run(run())
    assert SECRET not in text
    run_ = standalone(text, tmp_path)
    assert run_.returncode == 0
    assert "Not proven yet: the text of 1 sealed note, until they are revealed" in run_.stdout


def test_who_may_seal_and_reveal_and_refusals_change_nothing(tmp_path: Path) -> None:
    async def run() -> None:
        table = Table(await open_repository(tmp_path / "p.db"))
        try:
            await table.do(REF, gc.GameNew(system="asl"))
            await table.do(ALICE, gc.GameSeat(side="Axis"))
            await table.do(BOB, gc.GameSeat(side="Allied"))
            stranger = Actor(user_id=99, name="spectator")
            with pytest.raises(NotYourSide):
                await table.do(stranger, gc.GameSeal(text="x"))
            await table.do(ALICE, gc.GameSeal(text=SECRET))
            await table.do(BOB, gc.GameSeal(commitment=note_commitment(BOB_SALT, ORDERS)))
            head = await table.export()
            refusals: list[tuple[Actor, Any, type[Exception]]] = [
                (BOB, gc.GameReveal(entry=4), NotYourSide),  # not the sealer
                (REF, gc.GameReveal(entry=4), NotYourSide),  # not even a referee
                (ALICE, gc.GameReveal(entry=4, text="other", salt=BOB_SALT), InvalidInput),
                (BOB, gc.GameReveal(entry=5, text=ORDERS + "!", salt=BOB_SALT), InvalidInput),
                (BOB, gc.GameReveal(entry=5, text=ORDERS, salt="1" * 32), InvalidInput),
                (BOB, gc.GameReveal(entry=5), InvalidInput),  # no text and salt
                (ALICE, gc.GameReveal(entry=2), InvalidInput),  # not a sealed note
                (ALICE, gc.GameSeal(), InvalidInput),
                (ALICE, gc.GameSeal(text="a", commitment="b" * 64), InvalidInput),
                (ALICE, gc.GameSeal(commitment="not hex"), InvalidInput),
            ]
            for actor, command, refusal in refusals:
                with pytest.raises(refusal):
                    await table.do(actor, command)
                assert await table.export() == head  # nothing changed
            held = "The bot holds this note: /game reveal entry:4 alone reveals it."
            with pytest.raises(InvalidInput, match=f"^{re.escape(held)}$"):  # its entry named
                await table.do(ALICE, gc.GameReveal(entry=4, text=SECRET))
            await table.do(ALICE, gc.GameReveal(entry=4))
            with pytest.raises(InvalidInput, match="was revealed at entry 6"):
                await table.do(ALICE, gc.GameReveal(entry=4))
        finally:
            await table.repo.close()

    asyncio.run(run())


def test_the_guides_commands_for_ones_own_commitment_give_the_commitment_the_bot_checks() -> None:
    """docs/guide/TABLE.md shows how to compute one's own commitment in a shell: its lines,
    run as written (the salt drawn by its own command), print what the bot and both verifiers
    compute from that salt and text."""
    import subprocess

    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "TABLE.md").read_text()
    section = guide.split("**Sealing without showing the bot.**", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    run = subprocess.run(
        ["bash", "-c", block + 'echo "$SALT"\necho "$TEXT"\n'],
        capture_output=True, text=True, timeout=180, check=True,
    )  # fmt: skip
    printed, salt, text = run.stdout.splitlines()
    assert printed.split()[0] == note_commitment(salt, text)
    assert len(salt) == 32 and text == "Hold the village until turn 4"
    from bot.log.seats import note_commitment as checked  # the standalone checker's formula

    assert checked(salt, text) == note_commitment(salt, text)


def test_notes_revealed_at_the_end_that_do_not_fit_one_message_are_pointed_to_in_the_export(
    tmp_path: Path,
) -> None:
    """Regression: seven notes of 1,000 characters revealed by /game end overflow Discord's 6,000
    characters; the embed said "(see /game log)", whose line for the end shows no note."""

    async def run() -> None:
        table = Table(await open_repository(tmp_path / "many.db"))
        try:
            await table.do(REF, gc.GameNew(system="asl"))
            await table.do(ALICE, gc.GameSeat(side="Axis"))
            texts = [f"note {n}: " + "x" * 990 for n in range(7)]
            for text in texts:
                await table.do(ALICE, gc.GameSeal(text=text))
            ended = await table.do(REF, gc.GameEnd())
            embed = render_embed(ended)
            assert embed.fields[-1].name == "…"
            assert (embed.fields[-1].value or "").endswith(
                f"(entry #{ended.seq} in full: /game export)"
            )
            export = await table.export()
            assert all(text in export for text in texts)
        finally:
            await table.repo.close()

    asyncio.run(run())
