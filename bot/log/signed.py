"""What the bot signs, and checking an Ed25519 signature with nothing but the Python standard
library (a part of the standalone checker ``bot/log/verify_dice.py``; docs/TRUST.md).

The bot signs a game's *head*: the statement that entry ``seq`` of game ``game`` has hash
``hash`` — since every entry's hash covers the one before it, that is the whole log up to there.
The bytes signed are the canonical JSON (docs/EXPORT.md) of
``{"game": …, "head": {"hash": …, "seq": …}, "signed": "referee-game-log head"}``.

:func:`verify` is RFC 8032's Ed25519 verification written out with Python's integers (slow —
a few milliseconds — but one export holds one signature and a handful of signed anchors);
``referee verify`` checks the same signatures with the ``cryptography`` library.

>>> public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
>>> signature = bytes.fromhex(
...     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
...     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
>>> verify(public, b"", signature), verify(public, b"x", signature)
(True, False)
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.log.reading import Mismatch

STATEMENT = "referee-game-log head"
"""What a signature of the bot says: this is a head of a game's log."""


def head_message(game: str, seq: int, digest: str) -> bytes:
    """The bytes the bot signs for head ``seq`` (hash ``digest``) of game ``game``.

    >>> head_message("ab", 3, "00")
    b'{"game":"ab","head":{"hash":"00","seq":3},"signed":"referee-game-log head"}'
    """
    statement = {"game": game, "head": {"hash": digest, "seq": seq}, "signed": STATEMENT}
    text = json.dumps(statement, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


# --- Ed25519 (RFC 8032, section 5.1), verification only ------------------------------------

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)

Point = tuple[int, int, int, int]
"""A point in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x·y = T/Z."""


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    return _P - x if (x & 1) != sign else x


def _add(p: Point, q: Point) -> Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _times(n: int, p: Point) -> Point:
    q: Point = (0, 1, 1, 0)
    while n:
        if n & 1:
            q = _add(q, p)
        p = _add(p, p)
        n >>= 1
    return q


def _same(p: Point, q: Point) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


def _point(encoded: bytes) -> Point | None:
    if len(encoded) != 32:
        return None
    y = int.from_bytes(encoded, "little")
    x = _recover_x(y & ((1 << 255) - 1), y >> 255)
    if x is None:
        return None
    y &= (1 << 255) - 1
    return (x, y, 1, x * y % _P)


_BY = 4 * pow(5, _P - 2, _P) % _P
_BX = _recover_x(_BY, 0)
assert _BX is not None
_BASE: Point = (_BX, _BY, 1, _BX * _BY % _P)


def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the Ed25519 signature of ``message`` by ``public``."""
    if len(public) != 32 or len(signature) != 64:
        return False
    key, r = _point(public), _point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if key is None or r is None or s >= _L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little")
    return _same(_times(s, _BASE), _add(r, _times(k % _L, key)))


# --- what ties an export to the bot: its signature, and anchors posted in the channel --------

ANCHOR = re.compile(r"#?(\d+)\s*(?:[:·]\s*|\s+)([0-9a-f]{8,64})(?::([0-9a-f]{128}))?")
"""An entry's anchor as the bot posts it (``#17 · 3f9a2c71``) or typed (``17:3f9a2c71``); a
signed head (``17:<hash>:<signature>``, from ``/game status``)."""
COMMITMENT = re.compile(r"[0-9a-f]{64}")
"""A dice commitment, as posted at ``/game new`` and at each rotation."""


@dataclass(frozen=True)
class Anchor:
    """What someone copied from the channel: an entry's hash (or its first digits), perhaps
    signed; or (``seq`` None) a dice commitment."""

    seq: int | None
    digest: str
    signature: str | None = None

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """``17:3f9a2c71``, ``#17 · 3f9a2c71``, ``17:<hash>:<signature>`` or a commitment; a hash
        cut short as ``/game status`` shows it (``#17 3f9a2c71d0e4…``) is taken without its "…".

        >>> Anchor.parse("#17 · 3f9a2c71"), Anchor.parse("a" * 64).seq
        (Anchor(seq=17, digest='3f9a2c71', signature=None), None)
        >>> Anchor.parse("#17 3f9a2c71d0e4…").digest
        '3f9a2c71d0e4'
        """
        wanted = text.strip().lower().removesuffix("…").rstrip()
        if COMMITMENT.fullmatch(wanted):
            return cls(None, wanted)
        found = ANCHOR.fullmatch(wanted)
        if found is None or (found[3] and len(found[2]) != 64):
            raise ValueError(
                f"{text!r} is not an anchor: write it as the bot posts it, #17 · 3f9a2c71 (or "
                "17:3f9a2c71, at least 8 hex digits), a signed head 17:<hash>:<signature>, or a "
                "64-digit dice commitment"
            )
        return cls(int(found[1]), found[2], found[3])


Check = Callable[[str, bytes, str], bool]
"""(public key hex, message, signature hex) → whether the signature holds."""


def check_hex(public: str, message: bytes, signature: str) -> bool:
    """:func:`verify` for hex text (the standard-library check)."""
    try:
        return verify(bytes.fromhex(public), message, bytes.fromhex(signature))
    except ValueError:
        return False


def ties(
    header: Mapping[str, Any],
    hashes: Mapping[int, str],
    commitments: Mapping[int, str],
    keys: Iterable[str],
    anchors: Iterable[Anchor],
    check: Check = check_hex,
) -> tuple[list[str], list[str]]:
    """What the keys and anchors given prove of an export: (proofs, not checked), each a line of
    the verdict; raises :class:`Mismatch` at the entry whose anchor (or signature) does not hold.

    The export's signature must be by one of ``keys`` (the bot's published keys) when any is
    given; every anchor must match its entry of the file (a signed one, also a key given); every
    commitment, an epoch's.
    """
    keys = [k.strip().lower() for k in keys]
    anchors = list(anchors)
    head, game = header["head"], header["game"]
    proofs, unchecked = [], []
    signature = header.get("signature")
    if keys:
        if not isinstance(signature, dict) or signature.get("key") not in keys:
            named = signature.get("key") if isinstance(signature, dict) else None
            raise Mismatch(
                0,
                "the export is not signed by the key given "
                + (f"(it names the key {str(named)[:16]}…)" if named else "(it is not signed)"),
            )
        if not check(
            signature["key"], head_message(game, head["seq"], head["hash"]), signature["sig"]
        ):
            raise Mismatch(0, "the export's signature does not hold: it is not the bot's file")
        proofs.append(
            f"Signed by the key given ({signature['key'][:16]}…): the bot wrote entries 1–"
            f"{head['seq']} as they are here."
        )
    elif isinstance(signature, dict):
        named = str(signature.get("key"))[:16]
        unchecked.append(
            f"the signature (no --key given); the key it names, {named}…, is its own word"
        )
    reached, epochs, signed = 0, [], 0
    for anchor in anchors:
        if anchor.seq is None:
            epoch = next((e for e, c in commitments.items() if c == anchor.digest), None)
            if epoch is None:
                raise Mismatch(
                    0, f"no epoch of this file has the dice commitment {anchor.digest[:16]}… given"
                )
            epochs.append(epoch)
            continue
        digest = hashes.get(anchor.seq)
        if digest is None:
            raise Mismatch(
                anchor.seq,
                f"the bot posted entry #{anchor.seq}; this file ends at "
                f"#{head['seq']} (entries removed?)",
            )
        if not digest.startswith(anchor.digest):
            raise Mismatch(
                anchor.seq,
                f"its hash is {digest[:16]}…, the anchor given is {anchor.digest}…:"
                " not the entry the bot posted",
            )
        if anchor.signature is not None and keys:
            message = head_message(game, anchor.seq, digest)
            if not any(check(key, message, anchor.signature) for key in keys):
                raise Mismatch(anchor.seq, "the signed head given is not signed by the key given")
            signed += 1
        reached = max(reached, anchor.seq)
    if reached or epochs:
        told = []
        if reached:
            told.append(f"entries 1–{reached} are the ones the bot posted")
        if epochs:
            named = " and ".join(map(str, sorted(set(epochs))))
            told.append(f"the dice of epoch {named} come from the seed it committed to")
        after = (
            f"; nothing ties entries #{reached + 1}–#{head['seq']} to the channel"
            if reached < head["seq"] and not keys
            else ""
        )
        proofs.append(f"The anchors given prove that {' and that '.join(told)}{after}.")
    if any(a.signature for a in anchors) and not keys:
        unchecked.append("the signatures of the signed heads given (no --key given)")
    if signed:
        proofs[-1] = proofs[-1][:-1] + f" ({signed} signed by the key given)."
    return proofs, unchecked


__all__ = ["STATEMENT", "Anchor", "check_hex", "head_message", "ties", "verify"]
