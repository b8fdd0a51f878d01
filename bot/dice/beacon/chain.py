"""A drand chain: its public facts, round/time arithmetic, and checking a round's BLS signature.

The scheme is drand's ``bls-unchained-g1-rfc9380`` (the League of Entropy's *quicknet*): the
message of round ``r`` is ``SHA-256(r as 8 bytes, big-endian)``, hashed to the curve BLS12-381's
group G1 with the domain separation tag of RFC 9380; the 48-byte signature is a compressed G1
point, the chain's 96-byte public key a compressed G2 point; a signature is valid iff
``e(signature, G2 generator) == e(H(message), public key)``. A round's randomness is
``SHA-256(signature)``. The pairing arithmetic is the blst library's (PyPI ``pyblst``).

>>> round_at(QUICKNET, QUICKNET.genesis)
1
>>> round_at(QUICKNET, QUICKNET.genesis + 2.9), round_at(QUICKNET, QUICKNET.genesis + 3)
(1, 2)
>>> round_time(QUICKNET, 2) - QUICKNET.genesis
3
>>> beacon = verify_round(QUICKNET, 123, bytes.fromhex(QUICKNET_ROUND_123))
>>> beacon.randomness.hex()[:16]
'fb8f7bc29bf24db5'
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

import pyblst

SCHEME = "bls-unchained-g1-rfc9380"
"""The only signature scheme the bot accepts (signatures on G1, the key on G2)."""
DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
"""RFC 9380 domain separation tag of the scheme's hash to G1."""
G2_GENERATOR = bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d"
    "042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd480"
    "56c8c121bdb8"
)
"""The standard generator of BLS12-381's G2, compressed."""
GROUP_ORDER = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
"""The order r of the groups G1 and G2 (a secret key is an integer 1 ≤ k < r)."""
SIGNATURE_BYTES = 48
PUBLIC_KEY_BYTES = 96

QUICKNET_ROUND_123 = (
    "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0d"
    "fc92"
)
"""A real signed round of quicknet (round 123), for doctests and tests."""


class BadBeacon(Exception):
    """A round's signature is malformed or does not verify against the chain's public key."""


@dataclass(frozen=True)
class ChainInfo:
    """The public facts of a drand chain: what a verifier needs, and what the log records."""

    name: str
    chain_hash: str
    """64 hex digits: the chain's id, part of every relay URL."""
    public_key: str
    """96 bytes as hex: a compressed G2 point."""
    period: int
    """Seconds between rounds."""
    genesis: int
    """Unix time of round 1."""
    scheme: str = SCHEME

    def to_json(self) -> dict[str, Any]:
        """The chain as logged (``game.new``'s ``beacon``) and as a chain file holds it."""
        return {
            "name": self.name,
            "chain_hash": self.chain_hash,
            "public_key": self.public_key,
            "period": self.period,
            "genesis": self.genesis,
            "scheme": self.scheme,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChainInfo:
        """The chain from its JSON form; refuses another scheme or a malformed key.

        >>> ChainInfo.from_json(QUICKNET.to_json()) == QUICKNET
        True
        """
        info = cls(
            name=str(data["name"]),
            chain_hash=str(data["chain_hash"]).lower(),
            public_key=str(data["public_key"]).lower(),
            period=int(data["period"]),
            genesis=int(data["genesis"]),
            scheme=str(data.get("scheme", SCHEME)),
        )
        if info.scheme != SCHEME:
            raise ValueError(f"the beacon scheme {info.scheme!r} is not {SCHEME!r}")
        if info.period < 1:
            raise ValueError("a beacon period is at least 1 second")
        if len(bytes.fromhex(info.chain_hash)) != 32:
            raise ValueError("a chain hash is 64 hex digits")
        _public_key(info.public_key)
        return info

    @classmethod
    def from_text(cls, text: str) -> ChainInfo:
        """The chain from a JSON document (a chain file)."""
        return cls.from_json(json.loads(text))


QUICKNET = ChainInfo(
    name="quicknet",
    chain_hash="52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key=(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a577"
        "6a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc0"
        "9e76eae8991ef5ece45a"
    ),
    period=3,
    genesis=1692803367,
)
"""The League of Entropy's quicknet (threshold 12 of 22 nodes), a round every 3 seconds."""

KNOWN_CHAINS = {QUICKNET.chain_hash: QUICKNET}
"""Public chains whose key the verifiers know without trusting an export."""


def round_at(chain: ChainInfo, t: float) -> int:
    """The latest round published at Unix time ``t``: ``floor((t - genesis) / period) + 1``
    (0 before the genesis)."""
    if t < chain.genesis:
        return 0
    return math.floor((t - chain.genesis) / chain.period) + 1


def round_time(chain: ChainInfo, r: int) -> int:
    """The Unix time at which round ``r`` is published: ``genesis + (r - 1) * period``."""
    return chain.genesis + (r - 1) * chain.period


def first_round_after(chain: ChainInfo, t: float, margin: float = 0.0) -> int:
    """The first round published strictly after ``t + margin``.

    >>> first_round_after(QUICKNET, QUICKNET.genesis + 3)
    3
    >>> first_round_after(QUICKNET, QUICKNET.genesis + 2, margin=0.5)
    2
    """
    return round_at(chain, t + margin) + 1


def round_message(r: int) -> bytes:
    """The signed message of round ``r``: SHA-256 of the round number as 8 bytes, big-endian."""
    return hashlib.sha256(r.to_bytes(8, "big")).digest()


def randomness_of(signature: bytes) -> bytes:
    """A round's randomness: SHA-256 of its signature's bytes."""
    return hashlib.sha256(signature).digest()


@dataclass(frozen=True)
class Beacon:
    """One verified round: its number, signature and randomness."""

    round: int
    signature: bytes
    randomness: bytes

    def to_json(self) -> dict[str, Any]:
        """The round as a resolution entry logs it (``beacon``)."""
        return {
            "round": self.round,
            "signature": self.signature.hex(),
            "randomness": self.randomness.hex(),
        }


_G2 = pyblst.BlstP2Element.uncompress(G2_GENERATOR)
_KEYS: dict[str, Any] = {}


def _public_key(hex_key: str) -> Any:
    key = _KEYS.get(hex_key)
    if key is None:
        try:
            raw = bytes.fromhex(hex_key)
            if len(raw) != PUBLIC_KEY_BYTES:
                raise ValueError
            key = pyblst.BlstP2Element.uncompress(raw)
        except ValueError:
            raise ValueError("a beacon public key is a 96-byte compressed G2 point") from None
        _KEYS[hex_key] = key
    return key


def verify_round(chain: ChainInfo, r: int, signature: bytes) -> Beacon:
    """Check round ``r``'s signature against the chain's key; the verified round.

    The signature must be a canonical compressed point of G1 (blst checks the curve and the
    subgroup, so no second encoding of the same point, and no other point, passes).

    :raises BadBeacon: if it is malformed or does not verify.

    >>> verify_round(QUICKNET, 124, bytes.fromhex(QUICKNET_ROUND_123))
    Traceback (most recent call last):
    ...
    bot.dice.beacon.chain.BadBeacon: The signature of beacon round 124 does not verify.
    """
    if r < 1:
        raise BadBeacon(f"There is no beacon round {r}.")
    if len(signature) != SIGNATURE_BYTES:
        raise BadBeacon(f"The signature of beacon round {r} is not {SIGNATURE_BYTES} bytes.")
    try:
        point = pyblst.BlstP1Element.uncompress(signature)
    except ValueError:
        raise BadBeacon(f"The signature of beacon round {r} is not a point of G1.") from None
    if point.compress() != signature:
        raise BadBeacon(f"The signature of beacon round {r} is not canonically encoded.")
    hashed = pyblst.BlstP1Element.hash_to_group(round_message(r), DST)
    ok = pyblst.final_verify(
        pyblst.miller_loop(point, _G2), pyblst.miller_loop(hashed, _public_key(chain.public_key))
    )
    if not ok:
        raise BadBeacon(f"The signature of beacon round {r} does not verify.")
    return Beacon(round=r, signature=signature, randomness=randomness_of(signature))


def sign_round(secret: int, r: int) -> bytes:
    """The signature of round ``r`` under the secret key ``secret`` (a local chain's, for tests
    and trials; the real chains' keys are shared among the League's nodes)."""
    hashed = pyblst.BlstP1Element.hash_to_group(round_message(r), DST)
    signature: bytes = hashed.scalar_mul(secret).compress()
    return signature


def public_key_of(secret: int) -> bytes:
    """The compressed G2 public key of a secret key."""
    key: bytes = _G2.scalar_mul(secret).compress()
    return key


__all__ = [
    "DST",
    "KNOWN_CHAINS",
    "QUICKNET",
    "SCHEME",
    "BadBeacon",
    "Beacon",
    "ChainInfo",
    "first_round_after",
    "public_key_of",
    "randomness_of",
    "round_at",
    "round_message",
    "round_time",
    "sign_round",
    "verify_round",
]
