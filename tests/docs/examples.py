"""The docs' command examples, found and checked (the convention is in docs/DEVELOPING.md).

Two kinds of example:

* **Console sessions** — a fenced block with the info string ``referee`` holding command lines
  exactly as typed (optionally ``@user`` prefixes; a first line ``# dice: 3,4,6,6`` scripts the
  dice), immediately followed by a fenced block ``text`` holding the console's exact output.
  :func:`run_session` runs the lines through a real ``referee console`` process on a fresh
  database with those scripted dice and returns what it printed.
* **Inline commands** — an inline code span starting with a command of the bot (`` `/game new
  system:asl` ``). :func:`check_inline` says what is wrong with one, or nothing: the command must
  exist, every ``name:value`` must be one of its options with a valid value, and a signature
  (`` `/asl repair weapon [unit] [preview]` ``) must name required options bare and optional
  ones in brackets.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.commands import build_registry
from bot.commands.registry import CommandSpec, Registry, _convert
from bot.errors import BadCommand
from bot.models import AttachedFile, UserRef
from bot.service.systems import InstalledSystems
from rules_core.errors import RulesError, explain_validation_error

ROOT = Path(__file__).resolve().parents[2]

DISCORD_ONLY = {"help": ("group", "command"), "sync": ()}
"""Commands of the Discord cogs that are not game commands, with their options."""

FOREIGN_COMMANDS = {
    "ping": "the bare discord.py bot the benchmarks compare against (bench/floor_bot.py)",
    "toy": "the toy game system of the tests (tests/bot/toysystem.py)",
    "data": "a directory of the Docker image, not a command",
    "metrics": "the Prometheus endpoint of REFEREE_METRICS_PORT (bot/ops/health.py)",
    "healthz": "the liveness endpoint of REFEREE_METRICS_PORT (bot/ops/health.py)",
    "readyz": "the readiness endpoint of REFEREE_METRICS_PORT (bot/ops/health.py)",
    "gateway": "Discord's REST route GET /gateway/bot, asked by --shards auto",
}
"""Slash-words in the docs that are not the referee's commands, and why."""

DICE_LINE = re.compile(r"#\s*dice:\s*(?P<faces>[0-9,\s]*)$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
SPAN = re.compile(r"(?<!`)(`+)(?!`)(?P<code>.+?)(?<!`)\1(?!`)")


def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md and every Markdown file under docs/, in a stable order."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One fenced block: its info string, its lines and where it starts (1-based)."""

    info: str
    lines: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Session:
    """A ``referee`` block and the ``text`` block after it."""

    path: Path
    line: int
    commands: tuple[str, ...]
    expected: tuple[str, ...]

    @property
    def dice(self) -> str:
        """The scripted faces (``"3,4,6,6"``), empty when the block scripts none."""
        if self.commands:
            match = DICE_LINE.match(self.commands[0].strip())
            if match:
                return match["faces"].replace(" ", "")
        return ""

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _split(text: str) -> tuple[list[Block], list[tuple[int, str]]]:
    """The fenced blocks of a Markdown text, and its other lines with their numbers."""
    blocks: list[Block] = []
    prose: list[tuple[int, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            prose.append((index + 1, lines[index]))
            index += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines) and not (
            lines[index].strip().startswith(fence) and lines[index].strip().strip(fence[0]) == ""
        ):
            body.append(lines[index][indent:] if lines[index][:indent].isspace() else lines[index])
            index += 1
        index += 1  # the closing fence (or the end of the file)
        blocks.append(Block(info=match["info"].strip(), lines=tuple(body), line=start + 1))
        prose.append((start + 1, ""))  # a block ends a paragraph
    return blocks, prose


class ConventionError(Exception):
    """A ``referee`` block without its ``text`` block right after it."""


def sessions(path: Path) -> list[Session]:
    """The console sessions of one document, in order.

    :raises ConventionError: a ``referee`` block is not immediately followed by a ``text`` block.
    """
    text = path.read_text(encoding="utf-8")
    blocks, _ = _split(text)
    lines = text.splitlines()
    found: list[Session] = []
    for index, block in enumerate(blocks):
        if block.info != "referee":
            continue
        after = blocks[index + 1] if index + 1 < len(blocks) else None
        closing = block.line + len(block.lines) + 1  # the closing fence's line number
        between = lines[closing : after.line - 1] if after is not None else []
        if after is None or after.info != "text" or any(line.strip() for line in between):
            raise ConventionError(
                f"{path.relative_to(ROOT)}:{block.line}: a `referee` block must be followed "
                "immediately by a `text` block with its exact output"
            )
        found.append(
            Session(path=path, line=block.line, commands=block.lines, expected=after.lines)
        )
    return found


def run_session(session: Session, workdir: Path) -> tuple[str, str, int]:
    """Run the session's lines through ``referee console`` on a fresh database in ``workdir``.

    :returns: standard output, standard error and the exit status.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    run = subprocess.run(
        [
            sys.executable, "-m", "bot", "console", "-",
            "--db", str(workdir / "docs-example.db"),
            f"--dice={session.dice}",
            "--out", str(workdir),
        ],
        input="\n".join(session.commands) + "\n",
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )  # fmt: skip
    return run.stdout, run.stderr, run.returncode


# --- inline commands ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Inline:
    """An inline code span that starts with a slash command."""

    path: Path
    line: int
    code: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: `{self.code}`"


def inline_commands(path: Path) -> Iterator[Inline]:
    """Every inline code span of the prose that starts with ``/word`` (paragraphs joined)."""
    _, prose = _split(path.read_text(encoding="utf-8"))
    paragraph: list[tuple[int, str]] = []
    for number, line in [*prose, (0, "")]:
        if line.strip():
            paragraph.append((number, line))
            continue
        if paragraph:
            joined = " ".join(text.strip() for _, text in paragraph)
            starts = []
            offset = 0
            for num, text in paragraph:
                starts.append((offset, num))
                offset += len(text.strip()) + 1
            for match in SPAN.finditer(joined):
                code = match["code"].strip()
                if re.match(r"/[A-Za-z]", code) and "/" not in code.split()[0][1:]:
                    at = max(num for off, num in starts if off <= match.start())
                    yield Inline(path=path, line=at, code=code)
        paragraph = []


def registry() -> Registry:
    """The commands of every installed system and the table."""
    return build_registry(InstalledSystems())


def _example_user(text: str) -> UserRef:
    name = text.strip().removeprefix("@").strip()
    if not name:
        raise BadCommand("Name a user, like @alice.")
    return UserRef(id=1, name=name)


def _example_file(text: str) -> AttachedFile:
    """A file an inline example names: a file of the repository, by its path from the root."""
    path = ROOT / text.strip()
    if not path.is_file():
        raise BadCommand(f"There is no file {text.strip()} in the repository.")
    return AttachedFile.from_bytes(path.name, path.read_bytes())


def check_inline(code: str, commands: Registry) -> str | None:
    """What is wrong with an inline command example, or None when it is a valid command."""
    try:
        tokens = shlex.split(code)
    except ValueError as exc:
        return f"cannot be read as a command line ({exc})"
    words = [tokens[0][1:]]
    rest = tokens[1:]
    first = words[0]
    if first in FOREIGN_COMMANDS:
        return None
    if first in DISCORD_ONLY:
        return _check_discord_only(first, rest, commands)
    paths = set(commands.commands)
    groups = {p.rsplit(".", 1)[0] for p in paths if "." in p}
    while rest and ".".join([*words, rest[0]]) in paths | groups:
        words.append(rest.pop(0))
    path = ".".join(words)
    if path in groups and path not in paths:
        if all(token in ("…", "...") for token in rest):
            return None  # a group named as a whole: `/game` or `/game …`
        if ":" not in rest[0] and not rest[0].startswith("["):
            return f"there is no command /{' '.join([*words, rest[0]])}"
        return f"/{' '.join(words)} is a group of commands; name one of them"
    if path not in paths:
        return f"there is no command /{' '.join(words)}"
    return _check_options(commands.commands[path], rest)


def _check_discord_only(name: str, rest: list[str], commands: Registry) -> str | None:
    allowed = DISCORD_ONLY[name]
    bare = [token for token in rest if ":" not in token]
    if name == "help" and bare == rest:  # the console's /help asl fire
        asked = ".".join(token.lower() for token in bare)
        if asked and asked not in set(commands.commands) | set(commands.groups()):
            return f"there is no command or group {' '.join(bare)!r}"
        return None
    for token in rest:
        option, colon, value = token.partition(":")
        if not colon:
            return f"write /{name}'s options as name:value, not {token!r}"
        if option not in allowed:
            return f"/{name} has no option {option!r}"
        known = set(commands.groups()) | set(DISCORD_ONLY)
        if option == "group" and value.strip().lstrip("/").lower() not in known:
            return f"there is no command group {value!r}"
        asked = ".".join(value.strip().lstrip("/").lower().split())
        if option == "command" and asked not in set(commands.commands) | known:
            return f"there is no command {value!r}"
    return None


def _check_options(spec: CommandSpec, rest: list[str]) -> str | None:
    """Options as ``name:value`` (checked whole), or a signature (``name [optional] …``)."""
    values: dict[str, Any] = {}
    for token in rest:
        if token in ("…", "..."):
            if values:
                return "an ellipsis belongs in a signature, not among name:value options"
            continue
        name, colon, value = token.partition(":")
        bracketed = token.startswith("[") and token.endswith("]")
        option = spec.option(token.strip("[]") if not colon else name)
        if option is None:
            typed = name if colon else token.strip("[]")
            return f"/{' '.join(spec.words)} has no option {typed!r}"
        if not colon:
            if values:
                return f"mixes name:value options with the bare option name {token!r}"
            if bracketed and option.required:
                return f"{option.name} is required, so it is not written in brackets"
            if not bracketed and not option.required:
                return f"{option.name} is optional, so write it [{option.name}]"
            continue
        if not value or "…" in value or "<" in value:
            return f"{name}: needs a real value, not {value!r}"
        try:
            converted = _convert(option, value, _example_user, _example_file)
        except (RulesError, BadCommand) as exc:
            return exc.user_message
        if option.choices and converted not in option.choices:
            return f"{name} is one of {', '.join(map(str, option.choices))}, not {value!r}"
        if option.field != "preview":
            values[option.field] = converted
    if not values:
        return None
    try:
        spec.model.model_validate({"action": spec.path, **values})
    except ValidationError as exc:
        wrong = [e for e in exc.errors() if e["type"] != "missing"]
        if wrong:
            return explain_validation_error(wrong[0])
    return None


def update(path: Path, workdir: Path) -> int:
    """Rewrite each ``text`` block after a ``referee`` block of ``path`` with what the console
    prints now; the number of blocks changed. Review the diff: the doc is then what the bot does.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    changed = 0
    for number, session in reversed(list(enumerate(sessions(path)))):
        out, err, _ = run_session(session, workdir / str(number))
        if err:
            raise SystemExit(f"{session.name}: the console complained:\n{err}")
        start = session.line + len(session.commands) + 2  # the `text` fence's line, 1-based
        got = out.splitlines()
        if got != list(session.expected):
            lines[start : start + len(session.expected)] = got
            changed += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":
    import tempfile

    if len(sys.argv) < 2:
        raise SystemExit("usage: python -m tests.docs.examples DOC.md...  (rewrites text blocks)")
    with tempfile.TemporaryDirectory() as tmp:
        for number, name in enumerate(sys.argv[1:]):
            # a directory per document: guide/OCS.md and rules/OCS.md share a stem, and the
            # second played its sessions on the first's databases (its dice then left unused)
            count = update(Path(name).resolve(), Path(tmp) / f"{number}-{Path(name).stem}")
            print(f"{name}: {count} session{'' if count == 1 else 's'} rewritten")
