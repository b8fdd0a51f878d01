"""Verifiable dice: committed seeds, player seed phrases, HMAC-SHA256, rejection sampling.

The derivation is specified byte by byte in ``docs/DICE.md``; ``bot/log/verify_dice.py`` is a
standard-library-only reimplementation that must agree with this module (a test checks both
against the worked vector of the document).

* Each game starts with a fresh 32-byte secret seed from the operating system's CSPRNG; its
  commitment ``SHA-256(seed)`` is posted when the game starts.
* Player seed phrases are folded into a running 32-byte *players mix*; every later die reads it.
* Die number ``seq`` (a game-wide sequence, never reused) with ``sides`` faces is
  ``HMAC-SHA256(seed, message(game, players, seq, sides, attempt))``: the first 8 bytes as a
  big-endian integer, rejected and retried with ``attempt + 1`` when it falls in the incomplete top
  range (no modulo bias), otherwise ``x % sides + 1``.
* The message is a versioned list of length-prefixed, named fields. Version 2 (beacon games) adds
  one field, ``beacon``: the 32-byte randomness of the drand round the declaration named.

>>> seed = bytes(range(32))
>>> commitment(seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> derive_face(seed, game="g1", players=NO_PLAYERS, seq=1, sides=6)
1
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from rules_core.dice import RecordingDice

DOMAIN = b"referee-dice"
"""The 12 ASCII bytes every die message starts with."""
VERSION = 1
"""The derivation version of server dice; beacon dice are version 2 (``BEACON_VERSION``)."""
BEACON_VERSION = 2
"""The derivation version of beacon dice: version 1's fields plus ``beacon`` before ``seq``."""
BEACON_BYTES = 32
SEED_BYTES = 32
NO_PLAYERS = bytes(32)
"""The players mix before any seed phrase: 32 zero bytes."""
_RANGE = 1 << 64


def new_seed() -> bytes:
    """A fresh secret seed: 32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: lowercase hex SHA-256 of its 32 bytes.

    >>> commitment(bytes(32))[:16]
    '66687aadf862bd77'
    """
    return hashlib.sha256(seed).hexdigest()


def mix_phrase(players: bytes, phrase: str) -> bytes:
    """The players mix after a seed phrase: ``SHA-256(mix || u32be(len) || utf8(phrase))``.

    >>> mix_phrase(NO_PLAYERS, "fortune favours the brave").hex()[:16]
    '175b3a372024e1b7'
    """
    data = phrase.encode("utf-8")
    return hashlib.sha256(players + struct.pack(">I", len(data)) + data).digest()


def _field(name: bytes, value: bytes) -> bytes:
    return struct.pack(">B", len(name)) + name + struct.pack(">I", len(value)) + value


def message(
    game: str, players: bytes, seq: int, sides: int, attempt: int, beacon: bytes | None = None
) -> bytes:
    """The HMAC message of one die attempt (docs/DICE.md): version 1's five fields, or with a
    beacon round's randomness version 2's six (``beacon`` between ``players`` and ``seq``).

    >>> message("g1", NO_PLAYERS, 1, 6, 0)[:14]
    b'referee-dice\\x01\\x05'
    >>> message("g1", NO_PLAYERS, 1, 6, 0, beacon=bytes(32))[:14]
    b'referee-dice\\x02\\x06'
    """
    fields: list[tuple[bytes, bytes]] = [
        (b"game", game.encode("utf-8")),
        (b"players", players),
    ]
    version = VERSION
    if beacon is not None:
        if len(beacon) != BEACON_BYTES:
            raise ValueError(f"a beacon's randomness is {BEACON_BYTES} bytes, not {len(beacon)}")
        fields.append((b"beacon", beacon))
        version = BEACON_VERSION
    fields += [
        (b"seq", struct.pack(">Q", seq)),
        (b"sides", struct.pack(">Q", sides)),
        (b"attempt", struct.pack(">I", attempt)),
    ]
    body = b"".join(_field(name, value) for name, value in fields)
    return DOMAIN + struct.pack(">BB", version, len(fields)) + body


def derive_face(
    seed: bytes,
    *,
    game: str,
    players: bytes,
    seq: int,
    sides: int,
    beacon: bytes | None = None,
) -> int:
    """Face ``1..sides`` of die ``seq``: HMAC-SHA256 with rejection sampling (no modulo bias);
    with ``beacon`` (a round's randomness), version 2 of the message.

    >>> [derive_face(bytes(range(32)), game="g1", players=NO_PLAYERS, seq=s, sides=6)
    ...  for s in range(1, 7)]
    [1, 3, 1, 6, 1, 4]
    """
    return Deriver(seed, game=game, players=players, beacon=beacon).face(seq, sides)


class Deriver:
    """Derives the dice of one seed, game and players mix; keys the HMAC once (same faces as
    :func:`message` + HMAC, only faster: the common prefix of the messages is hashed once).

    >>> deriver = Deriver(bytes(range(32)), game="g1", players=NO_PLAYERS)
    >>> [deriver.face(s, 6) for s in range(1, 4)]
    [1, 3, 1]
    """

    _TAIL = struct.Struct(">B3sIQB5sIQB7sII")

    def __init__(
        self, seed: bytes, *, game: str, players: bytes, beacon: bytes | None = None
    ) -> None:
        prefix = message(game, players, 0, 2, 0, beacon)
        head = prefix[: len(prefix) - self._TAIL.size]
        self._base = hmac.new(seed, head, hashlib.sha256)

    def _x(self, seq: int, sides: int, attempt: int) -> int:
        h = self._base.copy()
        h.update(
            self._TAIL.pack(3, b"seq", 8, seq, 5, b"sides", 8, sides, 7, b"attempt", 4, attempt)
        )
        return int.from_bytes(h.digest()[:8], "big")

    def face(self, seq: int, sides: int) -> int:
        """Face ``1..sides`` of die ``seq``."""
        if sides < 2:
            raise ValueError(f"a die needs at least 2 sides, not {sides}")
        limit = _RANGE - _RANGE % sides
        attempt = 0
        while True:
            x = self._x(seq, sides, attempt)
            if x < limit:
                return x % sides + 1
            attempt += 1


KEPT_DERIVERS = 1024
"""At most this many games' derivers are kept between actions (then all are forgotten and made
afresh): a game's dice are keyed once per seed, game and players mix, not once per action."""
_DERIVERS: dict[tuple[bytes, str, bytes, bytes | None], Deriver] = {}


def deriver(seed: bytes, *, game: str, players: bytes, beacon: bytes | None = None) -> Deriver:
    """The :class:`Deriver` of these dice, kept from an earlier action when there was one (it
    holds no state of its own beyond its keyed HMAC, which each die copies).

    >>> kept = deriver(bytes(range(32)), game="g1", players=NO_PLAYERS)
    >>> kept is deriver(bytes(range(32)), game="g1", players=NO_PLAYERS)
    True
    >>> kept.face(2, 6) == derive_face(bytes(range(32)), game="g1", players=NO_PLAYERS, seq=2,
    ...                                sides=6)
    True
    """
    key = (seed, game, players, beacon)
    known = _DERIVERS.get(key)
    if known is None:
        if len(_DERIVERS) >= KEPT_DERIVERS:
            _DERIVERS.clear()
        known = _DERIVERS[key] = Deriver(seed, game=game, players=players, beacon=beacon)
    return known


@dataclass(frozen=True)
class DieRecord:
    """One die as logged: its game-wide sequence number, size, face, label, epoch, scripted flag."""

    seq: int
    sides: int
    face: int
    label: str
    epoch: int
    scripted: bool = False

    def to_json(self) -> dict[str, object]:
        """The log's JSON form of the die."""
        return {
            "seq": self.seq,
            "sides": self.sides,
            "face": self.face,
            "label": self.label,
            "epoch": self.epoch,
            "scripted": self.scripted,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> DieRecord:
        """The die from its JSON form."""
        return cls(
            seq=int(str(data["seq"])),
            sides=int(str(data["sides"])),
            face=int(str(data["face"])),
            label=str(data["label"]),
            epoch=int(str(data["epoch"])),
            scripted=bool(data.get("scripted", False)),
        )


class FaceScript:
    """A shared script of faces (the console's ``--dice``); faces are consumed across actions."""

    def __init__(self, faces: Sequence[int]) -> None:
        self.faces = list(faces)
        self.used = 0

    @property
    def remaining(self) -> tuple[int, ...]:
        """Faces not consumed yet."""
        return tuple(self.faces[self.used :])


class DiceScriptExhausted(Exception):
    """The dice script ran out or held a face the die cannot show."""


class GameDice(RecordingDice):
    """The dice of one action: faces derived from the game's seed, each recorded as a DieRecord.

    With ``beacon`` (a verified round's randomness: beacon games), faces are version 2's.

    With a :class:`FaceScript`, faces come from the script instead and every record says
    ``scripted``. Sequence numbers are consumed either way, starting at ``next_seq``.

    >>> dice = GameDice(bytes(range(32)), game="g1", players=NO_PLAYERS, next_seq=1, epoch=1)
    >>> dice.DR("IFT DR")
    (1, 3)
    >>> [(d.seq, d.face, d.label) for d in dice.records]
    [(1, 1, 'IFT DR (colored)'), (2, 3, 'IFT DR (white)')]
    """

    def __init__(
        self,
        seed: bytes,
        *,
        game: str,
        players: bytes,
        next_seq: int,
        epoch: int,
        script: FaceScript | None = None,
        beacon: bytes | None = None,
    ) -> None:
        super().__init__()
        self._beacon = beacon
        self._seed = seed
        self._game = game
        self._players = players
        self.next_seq = next_seq
        self._epoch = epoch
        self._script = script
        self.records: list[DieRecord] = []
        self._deriver: Deriver | None = None

    def _face(self, sides: int, label: str) -> int:
        seq = self.next_seq
        if self._script is None:
            if self._deriver is None:
                self._deriver = deriver(
                    self._seed, game=self._game, players=self._players, beacon=self._beacon
                )
            face = self._deriver.face(seq, sides)
        else:
            script = self._script
            if script.used >= len(script.faces):
                raise DiceScriptExhausted(f"The dice script ran out at {label!r}.")
            face = script.faces[script.used]
            if not 1 <= face <= sides:
                raise DiceScriptExhausted(
                    f"The scripted face {face} at {label!r} is not a face of a d{sides}."
                )
            script.used += 1
        self.next_seq = seq + 1
        self.records.append(
            DieRecord(
                seq=seq,
                sides=sides,
                face=face,
                label=label,
                epoch=self._epoch,
                scripted=self._script is not None,
            )
        )
        return face


__all__ = [
    "BEACON_VERSION",
    "DOMAIN",
    "NO_PLAYERS",
    "VERSION",
    "Deriver",
    "DiceScriptExhausted",
    "DieRecord",
    "FaceScript",
    "GameDice",
    "commitment",
    "derive_face",
    "deriver",
    "message",
    "mix_phrase",
    "new_seed",
]
