"""The offline verifier page in a real headless Chromium agrees with both Python verifiers: on
honest exports of server and beacon games, on tampered exports (each must fail, at the same entry),
and on exports carrying any Unicode text players may write and 64-bit Discord ids."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.dice.beacon.games import BeaconConfig
from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.log import verify_dice
from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM, Shoot
from tests.web.browser import PAGE, Browser

SYSTEMS = {"toy": SYSTEM}
# Discord ids are 64-bit: beyond JavaScript's 2^53 exact integers
ALICE = Actor(user_id=2**63 - 25, name="alice")
BOB = Actor(user_id=2**62 + 1, name="bob")
HERE = Place(guild_id=2**60 + 3, channel_id=2**61 + 7)


async def play(
    db: Path, texts: tuple[str, str, str] = ("Hill 621", "fortune", "Morale Check"),
    *, beacon: BeaconConfig | None = None, end: bool = True,
) -> str:  # fmt: skip
    """A toy game with player text in its title, a seed phrase and a roll's reason; its export."""
    title, phrase, reason = texts
    repo = await open_repository(db)
    service = GameService(repo, SYSTEMS, beacon=beacon)
    try:
        dice = "beacon" if beacon else "server"
        await service.handle(HERE, ALICE, "n", gc.GameNew(system="toy", title=title, dice=dice))
        await service.handle(HERE, ALICE, "s1", gc.GameSeat(side="Axis"))
        await service.handle(HERE, BOB, "s2", gc.GameSeat(side="Allied"))
        await service.handle(HERE, BOB, "p", gc.GameSeed(phrase=phrase))
        for n, command in enumerate([Shoot(side="Axis"), gc.RollDice(dice="2d6", reason=reason)]):
            reply = await service.handle(HERE, ALICE if n == 0 else BOB, f"a{n}", command)
            if reply.awaiting_round is not None:
                await service.resolution(HERE, reply)
        if end:  # Alice plays: her end is a proposal Bob confirms
            proposal = await service.handle(HERE, ALICE, "e", gc.GameEnd())
            assert proposal.seq is not None
            await service.handle(HERE, BOB, "c", gc.GameConfirm(entry=proposal.seq))
        row = await repo.latest_game(HERE.guild_id, HERE.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await service.close_beacon()
        await repo.close()


def python_verdicts(text: str) -> tuple[bool, bool, str]:
    """(stdlib verifier OK, referee verify OK, the stdlib's message)."""
    lines = verify_dice.split_lines(text)
    try:
        verify_dice.check(lines)
        standalone, message = True, "OK"
    except verify_dice.Mismatch as exc:
        standalone, message = False, str(exc)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        standalone, message = False, f"malformed export ({exc!r})"
    return standalone, verify_lines(lines, SYSTEMS).ok, message


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def resealed(text: str, change: Any) -> str:
    """The export after ``change(entries)``, its hash chain recomputed (a forger's export)."""
    lines = text.splitlines()
    header, entries = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    change(entries)
    prev, out = "0" * 64, []
    for entry in entries:
        entry.pop("hash", None)
        entry["prev"] = prev
        prev = hashlib.sha256(canonical(entry).encode("utf-8")).hexdigest()
        out.append(canonical({**entry, "hash": prev}))
    header["head"] = {"seq": len(entries), "hash": prev}
    return "\n".join([canonical(header), *out]) + "\n"


def test_the_page_is_one_self_contained_file() -> None:
    html = PAGE.read_text(encoding="utf-8")
    assert "crypto.subtle" in html
    for outside in ("src=", "href=", "http://", "https://", "fetch(", "XMLHttpRequest", "import "):
        assert outside not in html, outside


def test_honest_exports_verify_in_the_page_and_in_python(browser: Browser, tmp_path: Path) -> None:
    text = asyncio.run(play(tmp_path / "a.db"))
    assert python_verdicts(text)[:2] == (True, True)
    verdict = browser.verify(write(tmp_path, "server.jsonl", text))
    assert verdict.ok, verdict
    counts = verify_dice.check(verify_dice.split_lines(text))
    assert f"entries: {counts['entries']}\ndice checked: {counts['dice checked']}" in verdict.counts
    assert verdict.headline.startswith(f"OK: {counts['entries']} entries consistent")
    assert counts["dice checked"] >= 4


def test_a_beacon_game_verifies_in_the_page_which_says_what_it_did_not_check(
    browser: Browser, tmp_path: Path
) -> None:
    async def beacon_game() -> str:
        relay = LocalRelay(LocalChain.new(period=1))
        await relay.start()
        try:
            # the relay answers in milliseconds, seconds under load: a round that comes is awaited
            config = BeaconConfig(chain=relay.info, relays=(relay.url,), timeout=3.0, patience=30.0)
            return await play(tmp_path / "b.db", beacon=config)
        finally:
            await relay.stop()

    text = asyncio.run(beacon_game())
    assert python_verdicts(text)[:2] == (True, True)
    verdict = browser.verify(write(tmp_path, "beacon.jsonl", text))
    assert verdict.ok, verdict
    assert any("Not checked: the BLS signatures of the 2 beacon rounds" in n for n in verdict.notes)


def test_tampered_exports_fail_in_the_page_and_in_both_python_verifiers(
    browser: Browser, tmp_path: Path
) -> None:
    text = asyncio.run(play(tmp_path / "t.db"))
    lines = text.splitlines()
    shot = next(i for i, line in enumerate(lines) if '"kind":"action"' in line)

    def face(entries: list[dict[str, Any]]) -> None:
        die = entries[shot - 1]["dice"][0]
        die["face"] = die["face"] % 6 + 1
        for roll in entries[shot - 1]["outcome"]["rolls"]:
            roll["faces"] = [die["face"], *roll["faces"][1:]]
            break

    def seed(entries: list[dict[str, Any]]) -> None:
        entries[-1]["revealed_seed"] = "00" * 32

    def phrase(entries: list[dict[str, Any]]) -> None:
        entry = next(e for e in entries if e["kind"] == "game.seed")
        entry["phrase"] += "!"

    def removed(entries: list[dict[str, Any]]) -> None:
        del entries[shot - 1]

    short_head = json.loads(lines[0])
    short_head["head"]["seq"] -= 1
    forgeries = {
        "edited": "\n".join(
            [*lines[:shot], lines[shot].replace('"target":7', '"target":8', 1), *lines[shot + 1 :]]
        )
        + "\n",
        "face": resealed(text, face),
        "seed": resealed(text, seed),
        "phrase": resealed(text, phrase),
        "removed": "\n".join(lines[:shot] + lines[shot + 1 :]) + "\n",
        "reordered": "\n".join(
            [lines[0], *lines[1 : shot - 1], lines[shot], lines[shot - 1], *lines[shot + 1 :]]
        )
        + "\n",
        "header head": "\n".join([canonical(short_head), *lines[1:]]) + "\n",
        "big id rounded": text.replace(str(ALICE.user_id), str(int(float(ALICE.user_id))), 1),
    }
    for name, forged in forgeries.items():
        assert forged != text, name
        standalone, full, message = python_verdicts(forged)
        verdict = browser.verify(write(tmp_path, f"{name}.jsonl", forged))
        assert (standalone, full, verdict.ok) == (False, False, False), (name, message, verdict)
        if message.startswith("entry "):
            assert verdict.problems[0].split(":")[0] == message.split(":")[0], (name, verdict)


TEXT = st.text(min_size=1, max_size=30)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=TEXT, phrase=TEXT, reason=TEXT)
@example(
    title='\u2028\x85\x00\x7f"\\\t', phrase="é\U0001f600\ufffd", reason="\u2029ℤ\U00010000\uffff"
)
@example(title="key order: \U00010000 \uffff", phrase=" ", reason="\n\r")
def test_any_unicode_players_write_verifies_alike_in_the_page_and_in_python(
    browser: Browser, title: str, phrase: str, reason: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            text = asyncio.run(play(Path(tmp) / "u.db", (title, phrase, reason)))
        except Exception as exc:  # the bot refused the text: then there is nothing to verify
            assert getattr(exc, "user_message", None), exc
            return
        standalone, full, message = python_verdicts(text)
        verdict = browser.verify(write(Path(tmp), "unicode.jsonl", text))
        assert (standalone, full, verdict.ok) == (True, True, True), (message, verdict)
        counts = verify_dice.check(verify_dice.split_lines(text))
        assert f"dice checked: {counts['dice checked']}" in verdict.counts


def test_game_export_page_true_attaches_the_page_which_verifies_the_export(
    browser: Browser, tmp_path: Path
) -> None:
    """A real ``referee console``: ``/game export page:true`` writes the export and the page;
    the page written (not the source file) verifies the export in the browser."""
    script = tmp_path / "game.txt"
    script.write_text(
        "/game new system:toy title:Attached\n/game seat side:Axis\n/toy shoot side:Axis\n"
        "/game end\n/game export page:true\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "bot", "console", str(script), "--db", str(tmp_path / "c.db"),
         "--as", "alice", "--out", str(out), "--plugin", "tests.bot.toysystem"],
        capture_output=True, text=True, timeout=120, cwd=PAGE.parents[2],
        env={k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "DISCORD_"))},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    (export,) = out.glob("game-*.jsonl")
    page = out / f"{export.stem}-verify.html"  # named per game: a second one never overwrites it
    assert page.read_bytes() == PAGE.read_bytes()
    verdict = browser.verify_with(page, export)
    assert verdict.ok, verdict


def test_an_export_of_an_older_referee_passes_the_page_on_its_chain_and_dice_alone(
    browser: Browser, tmp_path: Path
) -> None:
    """A real first-wave export (tests/bot/test_rules_version.py): `referee verify` says its
    rulings from entry #5 on were not verified (exit 3); the page, which never replays the rules
    (it says so above the drop zone), accepts its chain and dice as the standard-library checker
    does, and still refuses a re-hashed edit of a die."""
    wave1 = Path(__file__).resolve().parents[1] / "bot" / "exports" / "asl-wave1-hill-621.jsonl"
    text = wave1.read_text(encoding="utf-8")
    verdict = browser.verify(wave1)
    assert verdict.ok, verdict
    assert "entries: 9\ndice checked: 4" in verdict.counts
    assert "It does not replay the rules" in PAGE.read_text(encoding="utf-8")
    lines = verify_dice.split_lines(text)
    header, entries = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    roll = next(e for e in entries if e["kind"] == "roll")
    roll["dice"][0]["face"] = 7 - roll["dice"][0]["face"]
    prev = "0" * 64
    for entry in entries:
        entry.pop("hash")
        entry["prev"] = prev
        body = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        entry["hash"] = prev = hashlib.sha256(body.encode()).hexdigest()
    header["head"] = {"seq": entries[-1]["seq"], "hash": prev}
    forged = "".join(
        json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
        for x in [header, *entries]
    )
    assert not browser.verify(write(tmp_path, "forged.jsonl", forged)).ok


def test_the_page_reads_as_strictly_and_checks_who_acted_as_the_python_verifiers(
    browser: Browser, tmp_path: Path
) -> None:
    """Every loose reading and every entry re-attributed to a player who could not declare it,
    refused by both Python verifiers (tests/bot/test_verify_strict.py), is refused by the page,
    at the same entry as the standard-library checker."""
    from tests.bot import test_verify_strict as strict
    from tests.bot.test_verify_forgery import ALICE as ALICE_
    from tests.bot.test_verify_forgery import BOB as BOB_
    from tests.bot.test_verify_forgery import play as play_console
    from tests.bot.test_verify_forgery import reseal as reseal_entries
    from tests.bot.test_verify_forgery import roll_detail, roll_text

    honest = asyncio.run(play_console(tmp_path / "s.db", strict.LINES))
    assert browser.verify(write(tmp_path, "honest.jsonl", honest)).ok
    forgeries = {name: reseal_entries(honest, edit) for name, edit in strict.ENTRY_EDITS.items()}
    forgeries["a roll's displayed text"] = reseal_entries(honest, roll_text)
    forgeries["a roll's per-die detail"] = reseal_entries(honest, roll_detail)
    forgeries |= {name: edit(honest) for name, edit in strict.LINE_EDITS.items()}
    forgeries["a takeover without sides"] = reseal_entries(
        honest, strict.by_player(5, BOB_, drop_sides=True)
    )
    forgeries["set-up of both sides by one player"] = reseal_entries(
        honest, strict.by_player(6, ALICE_, drop_sides=False)
    )
    for name in ("A\x00", "HMG, LMG"):
        forgeries[f"a unit named {name!r}"] = asyncio.run(
            strict.play_with_service(tmp_path / f"{len(forgeries)}.db", name)
        )
    for n, (name, forged) in enumerate(forgeries.items()):
        standalone, full, message = python_verdicts(forged)
        assert not (standalone or full), name
        verdict = browser.verify(write(tmp_path, f"forged-{n}.jsonl", forged))
        assert not verdict.ok, (name, verdict)
        if message.startswith("entry "):
            assert verdict.problems[0].split(":")[0] in (
                message.split(":")[0],
                "malformed export",
            ), (name, message, verdict)
    older = reseal_entries(honest, strict.by_player(5, BOB_, drop_sides=True, downgrade=True))
    verdict = browser.verify(write(tmp_path, "older.jsonl", older))
    assert verdict.ok, verdict  # it cannot recompute sides: it says what it left unchecked
    assert any("beyond their acting side" in note for note in verdict.notes)


def test_the_page_says_what_it_proved_as_the_python_verifiers_do(
    browser: Browser, tmp_path: Path
) -> None:
    """An active game: OK so far, and how many dice of the unrevealed seed prove nothing yet; a
    scripted game says so at the top; no key or anchor: only its own consistency; the head and
    every epoch's commitment listed."""
    from bot.dice.game_dice import FaceScript
    from tests.bot.test_verify_forgery import REF
    from tests.bot.test_verify_forgery import play as play_console
    from tests.bot.test_verify_verdicts import GAME

    active = asyncio.run(play_console(tmp_path / "a.db", [*GAME, (REF, "/game rotate"), *GAME[3:]]))
    verdict = browser.verify(write(tmp_path, "active.jsonl", active))
    assert verdict.ok and verdict.headline.startswith("OK so far: 6 entries consistent"), verdict
    assert verdict.notes[0].startswith("It proves only its own consistency")
    assert (
        "Not proven yet: 2 dice of epoch 2's seed and what 1 entry made of them, until "
        "/game rotate or /game end." in verdict.notes
    )
    head = json.loads(active.split("\n")[0])["head"]
    assert f"head: #{head['seq']} {head['hash']}" in verdict.counts
    assert "(revealed)" in verdict.counts and "(not revealed yet)" in verdict.counts
    assert "scripted" not in verdict.counts
    scripted = asyncio.run(
        play_console(tmp_path / "s.db", [*GAME, (REF, "/game end")], script=FaceScript([3, 4]))
    )
    verdict = browser.verify(write(tmp_path, "scripted.jsonl", scripted))
    assert verdict.ok and verdict.headline.startswith("SCRIPTED GAME"), verdict
    assert "scripted dice: 2" in verdict.counts


def test_the_page_rejects_every_consistent_rewrite_by_the_key_and_by_an_anchor(
    browser: Browser, tmp_path: Path
) -> None:
    """The forgery suite's consistent rewrites (tests/bot/test_consistent_rewrites.py): the page
    calls each consistent, and nothing more, without key or anchor; it refuses each with the
    bot's public key in its field, and with an anchor the bot posted after the change."""
    from tests.bot import test_consistent_rewrites as rewrites

    honest, key = asyncio.run(rewrites.play(tmp_path / "honest" / "game.db", rewrites.GAME))
    anchor = rewrites.anchor_after_the_change(honest)
    commitment = json.loads(honest.split("\n")[1])["commitment"]
    verdict = browser.verify(
        write(tmp_path, "honest.jsonl", honest), key=key, anchors=(anchor, commitment)
    )
    assert verdict.ok, verdict
    assert verdict.notes[0].startswith(f"Signed by the key given ({key[:16]}…)"), verdict
    assert verdict.notes[1] == (
        "The anchors given prove that entries 1–12 are the ones the bot posted and that the dice "
        "of epoch 1 come from the seed it committed to."
    )
    for n, (what, (lines, seed_text, _)) in enumerate(rewrites.REWRITES.items()):
        db = tmp_path / f"forger{n}" / "game.db"
        forged, _ = asyncio.run(rewrites.play(db, lines, seed_text))
        path = write(tmp_path, f"forged-{n}.jsonl", forged)
        plain = browser.verify(path)
        assert plain.ok and plain.notes[0].startswith("It proves only its own consistency"), what
        signed = browser.verify(path, key=key)
        assert not signed.ok and signed.problems[0].startswith("entry 0:"), (what, signed)
        anchored = browser.verify(path, anchors=(anchor,))
        assert not anchored.ok, (what, anchored)
        copied = write(tmp_path, f"copied-{n}.jsonl", rewrites.with_signature_of(forged, honest))
        assert not browser.verify(copied, key=key).ok, what


def test_the_page_takes_the_heads_as_game_status_shows_them(
    browser: Browser, tmp_path: Path
) -> None:
    """/game status's log head cut to 12 hex digits and '…' (issue 24), pasted as shown in the
    anchors' field, is an anchor (the page refused it: '…' is not a hex digit); a wrong one is
    still refused."""
    import re

    from tests.bot.test_anchors import console

    out = console(tmp_path)
    short = re.search(r"Log head: (#5 [0-9a-f]{12}…)\n", out)
    assert short, out
    (export,) = tmp_path.glob("game-*.jsonl")
    verdict = browser.verify(export, anchors=(short[1],))
    assert verdict.ok and verdict.notes[0].startswith("The anchors given prove"), verdict
    wrong = short[1][:-2] + ("0" if short[1][-2] != "0" else "1") + "…"
    assert not browser.verify(export, anchors=(wrong,)).ok


def test_the_page_checks_sealed_notes_as_the_python_verifiers_do(
    browser: Browser, tmp_path: Path
) -> None:
    """Sealed, played on, revealed, exported (tests/bot/test_sealed_notes.py): the page accepts
    the honest export and refuses every reveal that is not the note sealed."""
    from tests.bot import test_sealed_notes as notes
    from tests.bot.test_verify_forgery import reseal as reseal_entries

    async def honest() -> str:
        table, _, text = await notes.play(tmp_path / "sealed.db")
        await table.repo.close()
        return text

    text = asyncio.run(honest())
    verdict = browser.verify(write(tmp_path, "sealed.jsonl", text))
    assert verdict.ok and "sealed notes: 2" in verdict.counts, verdict
    for n, (what, edit) in enumerate(notes.FORGERIES.items()):
        forged = reseal_entries(text, edit)
        standalone, full, message = python_verdicts(forged)
        assert not (standalone or full), what
        verdict = browser.verify(write(tmp_path, f"sealed-{n}.jsonl", forged))
        assert not verdict.ok, (what, verdict)
        assert verdict.problems[0].split(":")[0] == message.split(":")[0], (what, verdict)


def test_a_pools_dice_are_checked_in_the_page_which_leaves_its_total_to_referee_verify(
    browser: Browser, tmp_path: Path
) -> None:
    async def pool_game() -> str:
        repo = await open_repository(tmp_path / "pool.db")
        service = GameService(repo, SYSTEMS)
        try:
            await service.handle(HERE, ALICE, "n", gc.GameNew(system="toy", title="Pools"))
            await service.handle(HERE, ALICE, "s1", gc.GameSeat(side="Axis"))
            await service.handle(HERE, ALICE, "r", gc.RollDice(dice="4d6k3", reason="Strength"))
            await service.handle(HERE, ALICE, "e", gc.GameEnd())
            row = await repo.latest_game(HERE.guild_id, HERE.channel_id)
            assert row is not None
            return await export_game(repo, row)
        finally:
            await repo.close()

    text = asyncio.run(pool_game())
    assert python_verdicts(text)[:2] == (True, True)
    verdict = browser.verify(write(tmp_path, "pool.jsonl", text))
    assert verdict.ok, verdict
    assert any("Not checked: the totals of 1 dice pool (their" in n for n in verdict.notes), verdict

    def more(entries: list[dict[str, Any]]) -> None:  # a forger raises the pool's total
        roll = next(e for e in entries if e["kind"] == "roll")
        roll["total"] += 1

    forged = resealed(text, more)
    assert python_verdicts(forged)[:2] == (True, False)  # as the note says: referee verify only
    assert browser.verify(write(tmp_path, "forged.jsonl", forged)).ok


def test_the_page_checks_the_deadlines_entries_as_the_python_verifiers_do(
    browser: Browser, tmp_path: Path
) -> None:
    """A pause agreed by both, an extension, a missed deadline and a forfeit claim, with a plain
    deadline and one at a clock time in Paris (tests/bot/test_deadline_forgery.py): the page
    accepts both honest exports, refuses every forgery there at the same entry, and reads a
    deadline at a clock time in a zone as Python does (the miss falls 126 h into the wait; a
    deadline of 62 h, doubled by the extension, then at 20:00 in Kiritimati, UTC+14, comes
    7 h later: too late; at 23:30 UTC or 20:00 in New York, UTC-4, 30 min or 1 h later: in
    time)."""
    from tests.bot import test_deadline_forgery as deadlines
    from tests.bot.test_verify_forgery import reseal as reseal_entries

    plain = asyncio.run(deadlines.play(tmp_path / "plain.db"))
    paris = asyncio.run(deadlines.play(tmp_path / "paris.db", at="20:00", zone="Europe/Paris"))
    at_62h = {"deadline": 62 * 3600, "silence": 2 * 86400}
    rewrites = {
        **deadlines.FORGERIES,
        "at 20:00 in Kiritimati": deadlines.settings(
            **at_62h, at="20:00", zone="Pacific/Kiritimati"
        ),
        "at 23:30 UTC": deadlines.settings(**at_62h, at="23:30", zone="UTC"),
        "at 20:00 in New York": deadlines.settings(**at_62h, at="20:00", zone="America/New_York"),
    }
    for name, text in (("plain", plain), ("paris", paris)):
        assert python_verdicts(text)[:2] == (True, True), name
        verdict = browser.verify(write(tmp_path, f"{name}.jsonl", text))
        assert verdict.ok, (name, verdict)
    accepted = []
    for n, (what, edit) in enumerate(rewrites.items()):
        forged = reseal_entries(plain, edit)
        standalone, full, message = python_verdicts(forged)
        assert standalone == full, (what, message)
        verdict = browser.verify(write(tmp_path, f"rewrite-{n}.jsonl", forged))
        assert verdict.ok == standalone, (what, verdict, message)
        if standalone:
            accepted.append(what)
        else:
            assert verdict.problems[0].split(":")[0] == message.split(":")[0], (what, verdict)
    assert accepted == ["at 23:30 UTC", "at 20:00 in New York"]
