"""The bot's signing key on both engines (migration 004): made once at the first start, even by
processes starting together; rotated with the old public key kept; shown and rotated by
``referee key`` (a real subprocess); every signature checked by ``cryptography`` and by the
standard-library Ed25519 of ``bot/log/signed.py`` alike."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from bot.log import signed, signing
from bot.storage import open_repository
from tests.conftest import ENGINES

ROOT = Path(__file__).resolve().parents[2]


@ENGINES("sqlite", "postgresql")
async def test_processes_starting_together_make_one_key(database: Path | str) -> None:
    repos = [await open_repository(database) for _ in range(4)]
    try:
        made = await asyncio.gather(*(signing.signer(repo) for repo in repos))
        assert len({key.public_key for key in made}) == 1
        rows = await repos[0].signing_keys()
        assert [row.current for row in rows] == [True]
        assert len(rows[0].public_key) == 64 and len(rows[0].private_key) == 32
    finally:
        for repo in repos:
            await repo.close()


@ENGINES("sqlite", "postgresql")
async def test_a_rotated_key_is_kept_retired_and_what_it_signed_still_checks(
    database: Path | str,
) -> None:
    repo = await open_repository(database)
    try:
        first = await signing.signer(repo)
        old = first.sign_head("ab" * 16, 3, "00" * 32)
        second = await signing.rotate(repo)
        assert second.public_key != first.public_key
        assert [k.public_key for k in second.retired] == [first.public_key]
        assert await signing.signer(repo) is second
        new = second.sign_head("ab" * 16, 3, "00" * 32)
        message = signed.head_message("ab" * 16, 3, "00" * 32)
        for public, signature in ((first.public_key, old), (second.public_key, new)):
            assert signing.check_signature(public, message, signature)
            assert signed.check_hex(public, message, signature)
        assert not signing.check_signature(second.public_key, message, old)
        assert not signed.check_hex(second.public_key, message, old)
    finally:
        await repo.close()
    reopened = await open_repository(database)
    try:  # another process (a restart) signs with the new key
        assert (await signing.signer(reopened)).public_key == second.public_key
    finally:
        await reopened.close()


def test_referee_key_shows_and_rotates_the_key(tmp_path: Path) -> None:
    def key(*args: str) -> list[str]:
        run = subprocess.run(
            [sys.executable, "-m", "bot", "key", *args, "--db", str(tmp_path / "r.db")],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        return run.stdout.splitlines()

    (shown,) = key("show")
    assert shown.split()[0] == shown[:64] and " in use since " in shown
    assert key("show") == [shown]  # made once
    rotated = key("rotate")
    assert len(rotated) == 2 and rotated[1].startswith(f"{shown[:64]} retired (made ")
    assert key("show") == rotated
