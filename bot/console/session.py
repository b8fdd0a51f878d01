"""A console session: each line run through the command layer and the game service, printed.

Blank lines and lines starting with ``#`` are skipped; ``@name`` before a command acts as that
user for the line; ``quit`` or ``exit`` ends the session. With scripted dice the run is
reproducible: the game seed, game id, interaction ids and clock are derived from the lines, so
the same lines on the same database print the same output (``Reproducible``).

>>> wait_seconds(" 90 s")
90
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sys
import uuid
from collections.abc import AsyncIterable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from prompt_toolkit.patch_stdout import patch_stdout

from bot.commands import Registry, Request, build_registry, execute
from bot.commands.registry import split_line
from bot.config import Settings
from bot.console.help import help_json, help_text
from bot.console.prompt import prompt_lines
from bot.dice.beacon.games import config_from_settings
from bot.dice.game_dice import FaceScript
from bot.errors import BadCommand, UserError
from bot.models import Actor, AttachedFile, Place, Reply, ReplyFile, UserRef
from bot.render.text import render_text
from bot.service.game_service import GameService
from bot.storage import describe, open_repository
from rules_core.errors import RulesError
from rules_core.system import GameSystem

QUIT_WORDS = ("quit", "exit")
HISTORY_FILE = ".referee_history"
WAIT_LINE = re.compile(r"#\s*wait:(?P<span>.*)$")
WAIT_PART = re.compile(r"\s*(\d{1,7})\s*(d|h|min|s)\b")
WAIT_UNITS = {"d": 86400, "h": 3600, "min": 60, "s": 1}
"""``# wait: 2h 30min`` in a scripted run: the clock moves on by that much (d, h, min, s)."""


def wait_seconds(span: str) -> int | None:
    """The seconds of a ``# wait:`` line's span, or ``None`` if it is not one.

    >>> wait_seconds(" 2h 30min"), wait_seconds("1 d 5 s"), wait_seconds("soon"), wait_seconds("")
    (9000, 86405, None, None)
    """
    parts = WAIT_PART.findall(span)
    if not parts or WAIT_PART.sub("", span).strip():
        return None
    return sum(int(count) * WAIT_UNITS[unit] for count, unit in parts)


"""A line that is one of these words (or ``/quit``, ``/exit``) ends the session."""

log = logging.getLogger(__name__)

CONSOLE_GUILD = 0
"""The console plays in its own server id, apart from every Discord server."""


def console_id(name: str) -> int:
    """A stable id for a console user or channel name (the same name is always the same id).

    >>> console_id("alice") == console_id("Alice")
    True
    """
    digest = hashlib.sha256(name.strip().lower().encode("utf-8")).digest()
    return int.from_bytes(digest[:6], "big")


def console_user(name: str) -> UserRef:
    """The console user called ``name`` (``@alice`` or ``alice``)."""
    clean = name.strip().removeprefix("@").strip()
    if not clean:
        raise BadCommand("Name a user, like @alice.")
    return UserRef(id=console_id(clean), name=clean)


def console_file(path: str) -> AttachedFile:
    """A local file named in an option (``/game setup file:scenario.txt``), read as Discord reads
    an attachment: UTF-8, at most 64 KiB; a relative path is from the current directory."""
    if not path.strip():  # Path("") is the current directory
        raise BadCommand("Give the file's path, like file:docs/scenarios/asl.txt.")
    target = Path(path.strip()).expanduser()
    if target.is_dir():
        raise BadCommand(f"{path.strip()} is a folder; give the path of a file in it.")
    try:
        AttachedFile.check_size(target.name, target.stat().st_size)
        data = target.read_bytes()
    except OSError as exc:
        raise BadCommand(f"Cannot read the file {path.strip()}: {exc.strerror}.") from None
    return AttachedFile.from_bytes(target.name, data)


def console_place(options: ConsoleOptions) -> Place:
    """Where the console plays: its own channel ``options.channel``, or with ``options.guild`` the
    Discord channel whose id is ``options.channel``."""
    if options.guild is None:
        return Place(guild_id=CONSOLE_GUILD, channel_id=console_id(options.channel))
    if not options.channel.strip().isdigit():
        raise BadCommand(
            f"With --guild, --channel takes the Discord channel's id (digits), not "
            f"{options.channel!r}."
        )
    return Place(guild_id=options.guild, channel_id=int(options.channel))


@dataclass
class ConsoleOptions:
    """The console's command-line options."""

    database: Path | str
    """An SQLite file or a ``postgresql://`` URL."""
    channel: str = "console"
    guild: int | None = None
    """A Discord server's id: play in its channel whose id is ``channel`` (the bot's games, on
    the bot's database), instead of the console's own channels."""
    user: str = "you"
    admins: tuple[str, ...] = ()
    dice: tuple[int, ...] | None = None
    json: bool = False
    export_dir: Path = field(default_factory=Path.cwd)
    history: Path | None = field(default_factory=lambda: Path.home() / HISTORY_FILE)
    """Where the prompt keeps the lines typed at a terminal between sessions (None: nowhere)."""


SCRIPTED_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
"""A scripted run's clock starts here and advances one second per reading."""


def ticks_after(at: str) -> int:
    """The scripted clock's first reading after the logged time ``at`` (never before the
    scripted epoch), in seconds since it: a later run on a database goes on from its game's
    last entry instead of going back in time.

    >>> ticks_after("2026-01-03T00:00:02.000+00:00"), ticks_after("2026-01-01T00:00:00.500+00:00")
    (172803, 1)
    >>> ticks_after("2025-12-31T23:00:00.000+00:00")
    0
    """
    since = (datetime.fromisoformat(at) - SCRIPTED_EPOCH).total_seconds()
    return max(0, int(since // 1) + 1)


class Reproducible:
    """The sources of a scripted run: interaction ids, seeds, game ids and time from the lines.

    ``salt`` names the database's state when the run starts (the channel's latest game and its
    log head), so a later run on the same database never reuses an interaction id; on a fresh
    database the same lines always give the same ids, seeds, hashes and times.

    >>> r = Reproducible("console", "0")
    >>> r.interaction(3)
    'console:scripted:console:0:3'
    >>> r.clock(), r.clock()
    ('2026-01-01T00:00:00.000+00:00', '2026-01-01T00:00:01.000+00:00')
    >>> len(r.seed()), r.seed() != r.seed(), len(r.game_id())
    (32, True, 32)
    """

    def __init__(self, channel: str, salt: str, after: str | None = None) -> None:
        self.prefix = f"console:scripted:{channel}:{salt}"
        self.current = self.prefix
        self.ticks = 0 if after is None else ticks_after(after)
        self.draws = 0

    def interaction(self, line: int) -> str:
        """The interaction id of line ``line`` (remembered as the current one)."""
        self.current = f"{self.prefix}:{line}"
        return self.current

    def _digest(self, kind: str) -> bytes:
        self.draws += 1
        text = f"referee {kind}\0{self.current}\0{self.draws}"
        return hashlib.sha256(text.encode("utf-8")).digest()

    def seed(self) -> bytes:
        """A seed derived from the current line: not secret, as scripted dice are not random."""
        return self._digest("scripted seed")

    def game_id(self) -> str:
        """A game id derived from the current line."""
        return self._digest("scripted game").hex()[:32]

    def wait(self, seconds: int) -> None:
        """Move the scripted clock on (a ``# wait: 2h`` line)."""
        self.ticks += seconds

    def peek(self) -> str:
        """The scripted clock's time, without moving it on (the deadlines' timers read it)."""
        moment = SCRIPTED_EPOCH + timedelta(seconds=self.ticks)
        return moment.isoformat(timespec="milliseconds")

    def clock(self) -> str:
        """The scripted clock: one second later at every reading."""
        moment = SCRIPTED_EPOCH + timedelta(seconds=self.ticks)
        self.ticks += 1
        return moment.isoformat(timespec="milliseconds")


class Console:
    """Reads lines, runs them through the service, prints each result."""

    def __init__(
        self,
        service: GameService,
        registry: Registry,
        options: ConsoleOptions,
        out: TextIO,
        reproducible: Reproducible | None = None,
    ) -> None:
        self.service = service
        self.registry = registry
        self.options = options
        self.out = out
        self.reproducible = reproducible
        self.place = console_place(options)
        self.failures = 0
        self.stopped = False
        """Set by ``quit`` or ``exit``: no later line runs."""
        self.timer_owner = f"console:{uuid.uuid4().hex}"
        """This process, as it claims the deadlines' timers of its channel's game."""

    def _interaction(self, number: int) -> str:
        if self.reproducible is not None:
            return self.reproducible.interaction(number)
        return f"console:{uuid.uuid4().hex}"

    def _actor(self, name: str) -> Actor:
        user = console_user(name)
        admins = {a.strip().lower().removeprefix("@") for a in self.options.admins}
        return Actor(user_id=user.id, name=user.name, is_admin=user.name.lower() in admins)

    async def run_line(self, number: int, line: str) -> None:
        """Run one line and print its result or its one-sentence error; every line is answered,
        an unexpected error (a bug) as ``internal error (...)``, and the run goes on."""
        try:
            await self._run_line(number, line)
            await self._timers()
        except (KeyboardInterrupt, SystemExit, BrokenPipeError):
            raise
        except Exception as exc:
            log.debug("internal error at line %d", number, exc_info=True)
            self._fail(
                number, line, f"internal error ({type(exc).__name__}: {exc})", "InternalError"
            )

    async def _wait(self, seconds: int) -> None:
        """``# wait:``: the scripted clock moves on, stopping at each deadline timer of this
        channel's game due on the way, which fires then (a reminder at 24 h says 24 h)."""
        assert self.reproducible is not None
        target = self.reproducible.ticks + seconds
        while self.options.guild is None:
            stamp = int((SCRIPTED_EPOCH + timedelta(seconds=target)).timestamp() * 1000)
            due = await self.service.repo.due_timers(
                stamp, 1, place=(self.place.guild_id, self.place.channel_id)
            )
            if not due:
                break
            at = max(
                self.reproducible.ticks, -(-due[0].due // 1000) - int(SCRIPTED_EPOCH.timestamp())
            )
            self.reproducible.ticks = at
            await self._timers()
            if self.reproducible.ticks > target:
                break
        self.reproducible.ticks = max(self.reproducible.ticks, target)

    async def _timers(self) -> None:
        """The deadlines' reminders due now in this console's own channel (a scripted run's
        clock moves with ``# wait:``): printed like any result. In a Discord channel
        (``--guild``) they are the bot's to post."""
        if self.options.guild is not None:
            return
        if self.reproducible is not None:
            now = datetime.fromisoformat(self.reproducible.peek())
        else:
            now = datetime.now(UTC)
        for notice in await self.service.fire_timers(now, self.timer_owner, place=self.place):
            await self._print_reply(notice.reply, notice.dm)

    async def _print_reply(self, reply: Reply, dm: Iterable[UserRef] = ()) -> None:
        """A result, and to whom it also goes by direct message (``/notify``)."""
        told = [
            user.name
            for user in {u.id: u for u in (*dm, *reply.notify)}.values()
            if (choice := await self.service.repo.notify(user.id)) is not None and choice.dm
        ]
        if self.options.json:
            self._emit({"ok": True, "reply": reply.to_json(), "direct_messages": told})
            return
        print(render_text(reply), file=self.out)
        for name in told:
            print(f"  by direct message to {name}", file=self.out)

    async def _run_line(self, number: int, line: str) -> None:
        text = line.strip()
        wait = WAIT_LINE.match(text)
        if wait is not None and self.reproducible is not None:
            seconds = wait_seconds(wait["span"])
            if seconds is None:
                self._fail(
                    number, line, "Write a wait as # wait: 2h 30min (d, h, min, s).", "BadCommand"
                )
            else:
                await self._wait(seconds)
            return
        if not text or text.startswith("#"):
            return
        if any("\udc80" <= char <= "\udcff" for char in text):
            self._fail(
                number,
                _printable(line),
                "This line is not UTF-8 text; nothing was run.",
                "BadCommand",
            )
            return
        name = self.options.user
        if text.startswith("@"):
            who, _, rest = text.partition(" ")
            name, text = who[1:], rest.strip()
        if text.casefold().removeprefix("/") in QUIT_WORDS:
            self.stopped = True
            return
        try:
            words, values = split_line(text)
            if words[0].lower() == "help":
                self._print_help(number, line, words, values)
                return
            spec, values = self.registry.resolve(words, values)
            request = Request(
                place=self.place,
                actor=self._actor(name),
                interaction_id=self._interaction(number),
                words=spec.words,
                options=values,
            )
            reply = await execute(self.service, request, self.registry, console_user, console_file)
        except (UserError, RulesError) as exc:
            self.failures += 1
            message = exc.user_message
            if self.options.json:
                self._emit(
                    {
                        "ok": False,
                        "line": number,
                        "input": line.strip(),
                        "error": message,
                        "error_type": type(exc).__name__,
                    }
                )
            else:
                print(f"line {number}: {message}", file=self.out)
            return
        if self.options.json:
            self._emit(
                {"ok": True, "line": number, "input": line.strip(), "reply": reply.to_json()}
            )
            if reply.awaiting_round is not None and not reply.replayed:
                await self._resolution(number, line, reply)
            return
        await self._print_reply(reply, (reply.mention,) if reply.mention is not None else ())
        if reply.awaiting_round is not None and not reply.replayed:
            await self._resolution(number, line, reply)
        shown = reply.file if reply.file_in_fields else None  # printed above: no file
        for written in (reply.file, *reply.attachments):
            if written is None or written is shown:
                continue
            target = self.options.export_dir / written_name(reply, written)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(written.content)
            except OSError as exc:
                self._fail(number, line, f"cannot write {target}: {exc.strerror}.", "OSError")
                return
            print(f"  written to {target}", file=self.out)

    async def _resolution(self, number: int, line: str, declared: Reply) -> None:
        """Wait for a beacon declaration's round and print its result, or say it is pending
        (it resolves later: not a failure of the line)."""
        try:
            reply = await self.service.resolution(self.place, declared)
        except UserError as exc:
            if self.options.json:
                self._emit({"ok": True, "line": number, "input": line.strip(),
                            "pending": exc.user_message})  # fmt: skip
            else:
                print(exc.user_message, file=self.out)
            return
        if self.options.json:
            self._emit({"ok": True, "line": number, "input": line.strip(),
                        "reply": reply.to_json()})  # fmt: skip
        else:
            print(render_text(reply), file=self.out)

    async def print_late(self, place: Place, reply: Reply) -> None:
        """A resolution that came after its declaration was reported pending."""
        if place != self.place:
            return
        if self.options.json:
            self._emit({"ok": True, "late": True, "reply": reply.to_json()})
        else:
            print(render_text(reply), file=self.out)

    def _fail(self, number: int, line: str, message: str, kind: str) -> None:
        self.failures += 1
        if self.options.json:
            self._emit(
                {
                    "ok": False,
                    "line": number,
                    "input": line.strip(),
                    "error": message,
                    "error_type": kind,
                }
            )
        else:
            print(f"line {number}: {message}", file=self.out)

    def _emit(self, data: Mapping[str, Any]) -> None:
        """One JSON object per line; the characters other tools take for line breaks (U+0085,
        U+2028, U+2029) are escaped, so any line splitter reads one object per line."""
        text = json.dumps(data, ensure_ascii=False)
        for char in "\x85\u2028\u2029":
            text = text.replace(char, f"\\u{ord(char):04x}")
        print(text, file=self.out, flush=True)

    def _print_help(
        self, number: int, line: str, words: tuple[str, ...], values: Mapping[str, str]
    ) -> None:
        """``/help``: the overview, a group's commands (``/help asl``, ``/help group:asl``) or
        one command's options (``/help asl fire``), as in Discord."""
        if self.options.json:
            found = help_json(self.registry, words, values)
            self._emit({"ok": True, "line": number, "input": line.strip(), "help": found})
            return
        print(help_text(self.registry, words, values), file=self.out)

    async def run_async(self, lines: AsyncIterable[str]) -> None:
        """Run every line typed at the prompt, in order."""
        number = 0
        async for line in lines:
            number += 1
            await self.run_line(number, line)
            if self.stopped:
                break

    async def run(self, lines: Iterable[str]) -> None:
        """Run every line in order."""
        for number, line in enumerate(lines, start=1):
            await self.run_line(number, line)
            if self.stopped:
                break


def written_name(reply: Reply, written: ReplyFile) -> str:
    """The name a file of ``reply`` is written under: a file sent with an export is named after
    the export (``game-<id>-verify.html``), so a second game's never overwrites the first's.

    >>> export = ReplyFile(filename="game-ab12.jsonl", content=b"")
    >>> page = ReplyFile(filename="verify.html", content=b"")
    >>> reply = Reply(command="/game export", title="", file=export, attachments=(page,))
    >>> written_name(reply, page), written_name(reply, export)
    ('game-ab12-verify.html', 'game-ab12.jsonl')
    """
    if reply.file is None or written is reply.file:
        return written.filename
    return f"{Path(reply.file.filename).stem}-{written.filename}"


async def _interactive(console: Console, service: GameService, out: TextIO) -> None:
    """The prompt at a terminal (``prompt.py``); what is printed while a line is being typed (a
    beacon result coming in) goes above the line."""

    async def names(kind: str, typed: str) -> list[str]:
        found: list[str] = await service.autocomplete(console.place, kind, typed)
        return found

    with patch_stdout(raw=True):
        if out is sys.__stdout__:
            console.out = sys.stdout
        await console.run_async(prompt_lines(console.registry, names, console.options.history))


def _lines(data: bytes) -> list[str]:
    """A command file's lines: split on "\\n" only (a U+2028 in a reason stays in its line);
    bytes that are not UTF-8 are kept as surrogates, so that line alone is refused."""
    text = data.decode("utf-8", errors="surrogateescape")
    return [line.removesuffix("\r") for line in text.split("\n")]


def _printable(line: str) -> str:
    return line.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


async def run_console(
    options: ConsoleOptions,
    source: str | None,
    systems: Mapping[str, GameSystem[Any, Any]] | None = None,
    out: TextIO = sys.stdout,
) -> int:
    """Run the console on a file (``source``), stdin, or an interactive prompt.

    :returns: 0 when every line succeeded (always 0 at an interactive prompt), 1 when some line
        failed or scripted dice were left unused, 2 when the source cannot be read.
    """
    interactive = source is None and sys.stdin.isatty()
    if source is not None and source != "-":
        try:
            lines: Iterable[str] = _lines(Path(source).read_bytes())
        except OSError as exc:
            print(f"cannot read {source}: {exc.strerror}", file=sys.stderr)
            return 2
    elif interactive:
        lines = ()
    else:
        lines = _lines(sys.stdin.buffer.read())
    script = FaceScript(options.dice) if options.dice is not None else None
    settings = Settings()
    # the beacon settings are checked before the database is opened: nothing is left open
    beacon = config_from_settings(settings) if script is None else None
    repo = await open_repository(options.database)
    service: GameService | None = None
    try:
        reproducible: Reproducible | None = None
        if script is None:
            service = GameService(
                repo,
                systems,
                script=script,
                beacon=beacon,
                dice_default=settings.dice_default,
            )
        else:
            place = console_place(options)
            latest = await repo.latest_game(place.guild_id, place.channel_id)
            salt = "0" if latest is None else f"{latest.id}.{latest.head_seq}"
            last = await repo.last_entries(latest.id, 1) if latest is not None else []
            # the clock goes on after the game's last entry: a log's times never run backwards
            after = str(last[0].data()["at"]) if last else None
            reproducible = Reproducible(options.channel, salt, after)
            service = GameService(
                repo,
                systems,
                script=script,
                clock=reproducible.clock,
                peek=reproducible.peek,
                seeds=reproducible.seed,
                game_ids=reproducible.game_id,
            )
            # scripted runs sign with a key everyone can make, as their dice are everyone's
            await service.signing_key(seed=hashlib.sha256(b"referee scripted signing key").digest())
        console = Console(
            service, build_registry(service.systems), options, out, reproducible=reproducible
        )
        if service.resolver is not None:
            service.resolver.on_late = console.print_late
            await service.resume_beacon()
        if interactive:
            print(
                f"referee console — channel {options.channel!r}, acting as {options.user!r}, "
                f"database {describe(options.database)}. /help lists the commands; Tab "
                "completes, Up recalls; quit, exit or Ctrl-D quits.",
                file=out,
            )
            await _interactive(console, service, out)
        else:
            await console.run(lines)
    finally:
        if service is not None:
            await service.close_beacon()
        await repo.close()
    failed = console.failures > 0
    if script is not None and script.remaining:
        print(
            f"scripted dice left unused: {', '.join(map(str, script.remaining))}",
            file=sys.stderr,
        )
        failed = True
    return 0 if interactive or not failed else 1


__all__ = [
    "CONSOLE_GUILD",
    "QUIT_WORDS",
    "Console",
    "ConsoleOptions",
    "Reproducible",
    "console_file",
    "console_id",
    "console_user",
    "run_console",
]
