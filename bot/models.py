"""The service's vocabulary: where (Place), who (Actor), and what comes back (Reply).

A :class:`Reply` is data, not text: ``bot/render/text.py`` renders it for the console and the
Discord side renders the same structure as an embed.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from rules_core.dice import Roll
from rules_core.errors import InvalidInput
from rules_core.outcome import Fact, Step


class Place(BaseModel):
    """Where a command was issued: the server, the channel or thread, and a thread's parent."""

    model_config = ConfigDict(frozen=True)

    guild_id: int
    channel_id: int
    parent_id: int | None = None


class Actor(BaseModel):
    """Who issued a command: the user's id, display name, and whether they administer the server."""

    model_config = ConfigDict(frozen=True)

    user_id: int
    name: str
    is_admin: bool = False


class UserRef(BaseModel):
    """A user named in an option (``player:@alice``): id and display name.

    Validates from ``{"id", "name"}`` or from any object with ``id`` and ``display_name`` (or
    ``name``) attributes, such as a ``discord.Member``, so a Discord user option can be passed in
    as it is.

    >>> class Member:
    ...     id = 42
    ...     display_name = "Alice"
    >>> UserRef.model_validate(Member())
    UserRef(id=42, name='Alice')
    """

    model_config = ConfigDict(frozen=True)

    id: int
    name: str

    @model_validator(mode="before")
    @classmethod
    def _from_user_object(cls, value: Any) -> Any:
        if isinstance(value, dict | UserRef) or not hasattr(value, "id"):
            return value
        name = getattr(value, "display_name", None) or getattr(value, "name", None)
        return {"id": value.id, "name": str(name)}


class DieView(BaseModel):
    """One die as posted: game-wide sequence number, size, face, label, seed epoch, scripted."""

    model_config = ConfigDict(frozen=True)

    seq: int
    sides: int
    face: int
    label: str
    epoch: int
    scripted: bool = False


class OddsLine(BaseModel):
    """One outcome of a preview: its facts and exact probability ``numerator/denominator``."""

    model_config = ConfigDict(frozen=True)

    facts: tuple[Fact, ...]
    numerator: int
    denominator: int

    @property
    def probability(self) -> Fraction:
        """The probability as a Fraction."""
        return Fraction(self.numerator, self.denominator)


class FaceStats(BaseModel):
    """Counts of each face of one die size and a chi-square test of uniformity."""

    model_config = ConfigDict(frozen=True)

    sides: int
    counts: tuple[int, ...]
    """``counts[i]`` is how often face ``i + 1`` came up."""
    chi_square: float
    degrees_of_freedom: int
    p_value: float
    enough_data: bool
    """False when some face is expected fewer than 5 times: the test is then not meaningful."""


MAX_FILE_BYTES = 64 * 1024
"""The largest file a command takes (a scenario of 500 set-up commands fits several times)."""


class AttachedFile(BaseModel):
    """A text file given with a command (``/game setup file:``): a Discord attachment the bot
    downloaded, or a local file the console read; UTF-8, at most :data:`MAX_FILE_BYTES`.

    >>> AttachedFile.from_bytes("s.txt", b"level side:Axis level:2").text
    'level side:Axis level:2'
    >>> AttachedFile.from_bytes("s.txt", bytes([255]))
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: s.txt is not UTF-8 text; save it as UTF-8 and attach it again.
    """

    model_config = ConfigDict(frozen=True)

    filename: str
    text: str

    @classmethod
    def check_size(cls, filename: str, size: int) -> None:
        """Refuse a file larger than :data:`MAX_FILE_BYTES` (before reading it)."""
        if size > MAX_FILE_BYTES:
            raise InvalidInput(
                f"{filename} has {size} bytes; a file may have at most {MAX_FILE_BYTES} "
                f"({MAX_FILE_BYTES // 1024} KiB)."
            )

    @classmethod
    def from_bytes(cls, filename: str, data: bytes) -> AttachedFile:
        """The file's text: refused if too large or not UTF-8 (nothing is done then)."""
        cls.check_size(filename, len(data))
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InvalidInput(
                f"{filename} is not UTF-8 text; save it as UTF-8 and attach it again."
            ) from None
        return cls(filename=filename, text=text)


class ReplyFile(BaseModel):
    """A file attached to a reply (the export)."""

    model_config = ConfigDict(frozen=True)

    filename: str
    content: bytes


class FollowUp(BaseModel):
    """A command the reader may want next, offered as a button in Discord ("Older entries")."""

    model_config = ConfigDict(frozen=True)

    label: str
    command: str
    """Dotted, as in the action literal: ``"game.log"``."""
    options: tuple[tuple[str, int | str], ...] = ()


class Reply(BaseModel):
    """Everything a renderer needs to show the result of one command."""

    model_config = ConfigDict(frozen=True)

    command: str
    """The command path as typed: ``/asl fire``, ``/game new``, ``/roll``."""
    title: str
    """The headline: what happened, in one line."""
    game_title: str | None = None
    system: str | None = None
    game_id: str | None = None
    side: str | None = None
    actor: str | None = None
    seq: int | None = None
    """The log entry's sequence number (None for previews and listings)."""
    entry_hash: str | None = None
    """The log entry's hash: its anchor (:attr:`anchor`) is posted with it."""
    steps: tuple[Step, ...] = ()
    facts: tuple[Fact, ...] = ()
    rolls: tuple[Roll, ...] = ()
    dice: tuple[DieView, ...] = ()
    odds: tuple[OddsLine, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    """Named values for listings: status lines, log entries, stats."""
    stats: tuple[FaceStats, ...] = ()
    commitment: str | None = None
    epoch: int | None = None
    revealed_seed: str | None = None
    scripted: bool = False
    ephemeral: bool = False
    replayed: bool = False
    """True when an interaction seen before was answered from the log, rolling nothing."""
    preview: bool = False
    file: ReplyFile | None = None
    file_in_fields: bool = False
    """The file's text is also the reply's ``fields`` (``/game forces``): the console prints it
    there and writes no file; Discord attaches the file."""
    notice: str | None = None
    """A turn notice: who must act next (Discord mentions ``mention``)."""
    mention: UserRef | None = None
    follow_ups: tuple[FollowUp, ...] = ()
    """Commands offered next (buttons in Discord; their command lines are in ``fields``)."""
    attachments: tuple[ReplyFile, ...] = ()
    """More files beside ``file`` (the offline verifier page of ``/game export page:true``)."""
    awaiting_round: int | None = None
    """A beacon game's declaration: the drand round its dice wait for (its result follows)."""
    notify: tuple[UserRef, ...] = ()
    """The other seated players of a result that rolled dice: told by direct message too if
    they chose so (``/notify``)."""

    @property
    def anchor(self) -> str | None:
        """``#17 · 3f9a2c71``: the entry's number and the first 8 hex digits of its hash, what a
        player copies from the channel to check an export against (docs/TRUST.md)."""
        if self.seq is None or self.entry_hash is None:
            return None
        return f"#{self.seq} · {self.entry_hash[:8]}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the console's ``--json``); a file's content is given as text."""
        skip = {"file", "attachments"} | (set() if self.notify else {"notify"})
        data = self.model_dump(mode="json", exclude=skip)
        data["attachments"] = [a.filename for a in self.attachments]
        if self.file is not None:
            data["file"] = {
                "filename": self.file.filename,
                "content": self.file.content.decode("utf-8", errors="replace"),
            }
        return data


HASH_SHOWN = 12
"""A hash a person reads is shown by its first this many hex digits (exports keep it whole)."""


def short_hash(digest: str) -> str:
    """A 64-digit hash as a person reads it: its first digits and an ellipsis, as in a roll's
    dice line; enough to compare by eye with an export, which has it whole.

    >>> short_hash("ab" * 32), short_hash("")
    ('abababababab…', '')
    """
    return f"{digest[:HASH_SHOWN]}…" if len(digest) > HASH_SHOWN else digest


IRREGULAR_VERBS = {"is": "are", "has": "have"}


def with_verb(name: str, verb: str) -> str:
    """``name`` and ``verb`` (third person) in agreement: "bob takes", but "you take" — the
    console's own user is called you.

    >>> with_verb("bob", "takes"), with_verb("you", "takes"), with_verb("You", "is")
    ('bob takes', 'you take', 'You are')
    """
    if name.strip().lower() != "you":
        return f"{name} {verb}"
    return f"{name} {IRREGULAR_VERBS.get(verb, verb.removesuffix('s'))}"


__all__ = [
    "MAX_FILE_BYTES",
    "Actor",
    "AttachedFile",
    "DieView",
    "FaceStats",
    "FollowUp",
    "OddsLine",
    "Place",
    "Reply",
    "ReplyFile",
    "UserRef",
    "short_hash",
    "with_verb",
]
