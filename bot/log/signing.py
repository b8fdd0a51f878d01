"""The bot's signing key: Ed25519 (the ``cryptography`` library), kept in the database.

Created at the bot's first start (or its first use of a database), carried by ``referee backup``
and ``referee migrate-db`` with the games, rotated with ``referee key rotate`` (the retired public
keys are kept and listed, so what they signed can still be checked). The key signs every head the
bot posts (``/game status``, the status board) and every export; ``referee verify --key`` and the
offline page check those signatures against the key the operator published (docs/OPERATING.md,
docs/TRUST.md). What is signed is :func:`bot.log.signed.head_message`.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from bot.log.signed import head_message
from bot.storage import Duplicate, Repository, SigningKeyRow


def _new_key(seed: bytes | None = None) -> SigningKeyRow:
    private = Ed25519PrivateKey.from_private_bytes(seed) if seed else Ed25519PrivateKey.generate()
    return SigningKeyRow(
        public_key=private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex(),
        private_key=private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        current=True,
    )


@dataclass(frozen=True)
class Signer:
    """The key in use and the retired public keys, oldest first."""

    current: SigningKeyRow
    retired: tuple[SigningKeyRow, ...]

    @property
    def public_key(self) -> str:
        """The public key in use: 64 lowercase hex digits, what an operator publishes."""
        return self.current.public_key

    def sign_head(self, game: str, seq: int, digest: str) -> str:
        """The signature (128 hex digits) of head ``seq`` (hash ``digest``) of game ``game``."""
        private = Ed25519PrivateKey.from_private_bytes(self.current.private_key)
        return private.sign(head_message(game, seq, digest)).hex()


_SIGNERS: weakref.WeakKeyDictionary[Repository, Signer] = weakref.WeakKeyDictionary()


async def signer(repo: Repository, *, seed: bytes | None = None) -> Signer:
    """The database's signing key, made at its first use; kept per open database (a key rotated
    by another process is used here after the next start). ``seed``: the 32 bytes of a new key
    (a scripted console run's, so that its output is the same every time); otherwise random."""
    found = _SIGNERS.get(repo)
    if found is None:
        found = await _load(repo, seed)
        _SIGNERS[repo] = found
    return found


async def _load(repo: Repository, seed: bytes | None = None) -> Signer:
    keys = await repo.signing_keys()
    if not any(key.current for key in keys):
        with contextlib.suppress(Duplicate):  # another process made it first: use theirs
            await repo.add_signing_key(_new_key(seed), retire=False)
        keys = await repo.signing_keys()
    current = next(key for key in keys if key.current)
    return Signer(current=current, retired=tuple(key for key in keys if not key.current))


async def rotate(repo: Repository) -> Signer:
    """Retire the key in use (kept, listed) and sign with a new one from now on."""
    await repo.add_signing_key(_new_key(), retire=True)
    _SIGNERS.pop(repo, None)
    return await signer(repo)


def check_signature(public_key: str, message: bytes, signature: str) -> bool:
    """Whether ``signature`` (hex) is ``public_key``'s (hex) Ed25519 signature of ``message``."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key))
        key.verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True


__all__ = ["Signer", "check_signature", "rotate", "signer"]
