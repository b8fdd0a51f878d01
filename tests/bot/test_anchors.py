"""Every reply that rolls or changes the game shows its entry's anchor (``#17 · 3f9a2c71``), in
the console and in Discord's embed, fresh or answered again from the log; the status board shows
the head's anchor and its signed head; and the anchors a player copies from those replies are
exactly what ``referee verify --anchor`` takes (issue 26 item 2)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from bot.log.signed import Anchor
from bot.log.verify import verify_file
from bot.models import DieView, Reply
from bot.render.embed import footer_text, render_embed
from bot.render.text import render_text
from bot.service.systems import InstalledSystems

ROOT = Path(__file__).resolve().parents[2]
LINES = """\
/game new system:asl title:"Anchors"
/game seat side:Axis
@bob /game seat side:Allied
/asl unit add name:A side:Axis kind:squad quality:4-6-7
/roll dice:DR reason:"Sniper check"
/game status
/game end
/game export
"""
ANCHOR = re.compile(r"^  anchor: (#(\d+) · ([0-9a-f]{8}))$", re.MULTILINE)


def console(tmp: Path, *args: str, lines: str = LINES) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "bot", "console", "-", "--db", str(tmp / "a.db"), "--out", str(tmp),
         *args],
        input=lines, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_every_logged_reply_shows_the_anchor_of_its_entry(tmp_path: Path) -> None:
    out = console(tmp_path)
    (export,) = tmp_path.glob("game-*.jsonl")
    hashes = {
        e["seq"]: e["hash"]
        for e in map(json.loads, export.read_text(encoding="utf-8").splitlines()[1:])
    }
    anchors = ANCHOR.findall(out)
    assert [int(seq) for _, seq, _ in anchors] == list(range(1, 7))  # every entry, no listing
    for _, seq, prefix in anchors:
        assert hashes[int(seq)].startswith(prefix)
    # copied from the channel, they are what referee verify takes
    taken = [Anchor.parse(text) for text, _, _ in anchors]
    report = verify_file(export, InstalledSystems(), anchors=taken)
    assert report.ok, report.message
    assert "The anchors given prove that entries 1–6 are the ones the bot posted" in report.message
    signed = re.search(r"^  Signed head: (\S+)$", out, re.MULTILINE)
    key = re.search(r"^  Bot key: ([0-9a-f]{64})$", out, re.MULTILINE)
    assert signed and key
    checked = verify_file(export, InstalledSystems(), [key[1]], [Anchor.parse(signed[1])])
    assert checked.ok and "(1 signed by the key given)" in checked.message, checked.message


def test_a_reply_answered_again_from_the_log_shows_the_same_anchor(tmp_path: Path) -> None:
    """The console's own interaction ids are fresh per line; the service's replay path is the one
    Discord uses on a redelivered interaction: same entry, same anchor."""
    import asyncio

    from bot.models import Actor, Place
    from bot.service.game_service import GameService
    from bot.storage import open_repository
    from bot.table import commands as gc

    async def twice() -> tuple[Reply, Reply]:
        repo = await open_repository(tmp_path / "r.db")
        try:
            service = GameService(repo)
            place, alice = Place(guild_id=1, channel_id=2), Actor(user_id=3, name="alice")
            await service.handle(place, alice, "n", gc.GameNew(system="asl"))
            await service.handle(place, alice, "s", gc.GameSeat(side="Axis"))
            first = await service.handle(place, alice, "r", gc.RollDice(dice="DR"))
            again = await service.handle(place, alice, "r", gc.RollDice(dice="DR"))
            return first, again
        finally:
            await repo.close()

    first, again = asyncio.run(twice())
    assert again.replayed and first.anchor == again.anchor is not None
    assert f"  anchor: {first.anchor}" in render_text(again)


def test_discord_shows_the_anchor_in_the_embed_footer_and_not_on_listings() -> None:
    reply = Reply(
        command="/roll", title="DR 7 (3,4)", seq=4, entry_hash="3f9a2c71" + "0" * 56,
        dice=(DieView(seq=1, sides=6, face=3, label="DR (colored)", epoch=1),),
        commitment="ab" * 32, epoch=1,
    )  # fmt: skip
    assert footer_text(reply).startswith("anchor #4 · 3f9a2c71 · dice #1")
    assert render_embed(reply).footer.text == footer_text(reply)
    listing = reply.model_copy(update={"ephemeral": True})
    assert "anchor" not in footer_text(listing) and "anchor" not in render_text(listing)


def test_the_status_board_shows_the_heads_anchor_and_its_signed_head(tmp_path: Path) -> None:
    out = console(tmp_path, lines=LINES.replace("/game status", "/game board"))
    board = out.split("status board", 1)[1]
    found = re.search(r"Log head: anchor (#(\d+) · [0-9a-f]{8})\n\s+signed (\S+)", board)
    assert found and found[2] == "5", board
    (export,) = tmp_path.glob("game-*.jsonl")
    key = subprocess.run(
        [sys.executable, "-m", "bot", "key", "show", "--db", str(tmp_path / "a.db")],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    ).stdout.split()[0]  # fmt: skip
    anchors = [Anchor.parse(found[1]), Anchor.parse(found[3])]
    report = verify_file(export, InstalledSystems(), [key], anchors)
    assert report.ok, report.message


def test_the_heads_game_status_shows_are_taken_as_copied(tmp_path: Path) -> None:
    """/game status shows the log head cut to 12 hex digits with '…' (issue 24) and the signed
    head whole: both, copied as shown, are anchors ``referee verify`` takes (the cut one was
    refused: '…' is not a hex digit); tests/web/test_verifier_page.py gives them to the page."""
    out = console(tmp_path)
    status = out.split("/game status", 1)[-1] if "/game status" in out else out
    short = re.search(r"Log head: (#5 [0-9a-f]{12}…)\n", status)
    signed = re.search(r"Signed head: (5:[0-9a-f]{64}:[0-9a-f]{128})\n", status)
    assert short and signed, status
    (export,) = tmp_path.glob("game-*.jsonl")
    key = subprocess.run(
        [sys.executable, "-m", "bot", "key", "show", "--db", str(tmp_path / "a.db")],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    ).stdout.split()[0]  # fmt: skip
    taken = [Anchor.parse(short[1]), Anchor.parse(signed[1])]
    assert taken[0].seq == 5 and len(taken[0].digest) == 12
    report = verify_file(export, InstalledSystems(), [key], taken)
    assert report.ok, report.message
