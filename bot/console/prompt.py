"""The console's prompt at a terminal: line editing, history and completion (prompt_toolkit).

Left/Right, Home/End, Ctrl-A/E, Ctrl-W and the other Emacs keys edit the line; Up/Down walk the
history, kept between sessions in ``~/.referee_history``, and Ctrl-R searches it; a grey
suggestion from the history is taken with Right. Tab completes, from the same declarations
Discord reads: the command's words (``/as`` → ``/asl``), its options not yet given
(``weap`` → ``weapons:``), an option's choices (``phase:pf`` → ``phase:pfph``), ``true`` or
``false``, and the names of the channel's game (units, weapons, sides…) as Discord's
autocomplete offers them, the last name of a comma-separated list too. Ctrl-C clears the line;
Ctrl-D on an empty line ends the session.

Completion reads the line as the console does (:func:`scan`), so a value in quotes is one word.

>>> [token.value for token in scan('/asl fire weapons:"HMG, L')]
['/asl', 'fire', 'weapons:HMG, L']
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from bot.commands.registry import CommandSpec, OptionSpec, Registry

PROMPT = "referee> "
CONSOLE_WORDS = ("help", "quit", "exit")
"""Commands of the console itself, completed like the others."""

Names = Callable[[str, str], Awaitable[list[str]]]
"""``(kind, typed) -> names``: the game's names of ``kind`` matching ``typed`` (the service's
autocomplete, as Discord asks it)."""


@dataclass(frozen=True)
class Token:
    """A word of the line as typed (``raw``, quotes kept) and as read (``value``)."""

    raw: str
    value: str


def scan(text: str) -> list[Token]:
    """The words of ``text``; the last is the one being typed (empty after a space). Quotes
    group a value as the console's parser does, and an open quote runs to the end."""
    tokens: list[Token] = []
    raw = value = ""
    quote: str | None = None
    for char in text:
        if quote is not None:
            raw += char
            if char == quote:
                quote = None
            else:
                value += char
        elif char.isspace():
            if raw:
                tokens.append(Token(raw, value))
            raw = value = ""
        elif char in "\"'":
            quote = char
            raw += char
        else:
            raw += char
            value += char
    tokens.append(Token(raw, value))
    return tokens


def quoted(value: str) -> str:
    """``value`` as typed in an option: in quotes when it holds a space or a quote.

    >>> quoted("LMG"), quoted("HMG, LMG")
    ('LMG', '"HMG, LMG"')
    """
    if not any(char.isspace() or char in "\"'" for char in value):
        return value
    return f"'{value}'" if '"' in value else f'"{value}"'


class CommandCompleter(Completer):
    """Completes a console line: command words, option names, choices and the game's names."""

    def __init__(self, registry: Registry, names: Names | None = None) -> None:
        self.registry = registry
        self.names = names

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterator[Completion]:
        yield from self._words(document.text_before_cursor)

    async def get_completions_async(
        self, document: Document, event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        text = document.text_before_cursor
        found = False
        for completion in self._words(text):
            found = True
            yield completion
        if not found:
            async for completion in self._names(text):
                yield completion

    # -- what is being typed --------------------------------------------------------------

    def _split(self, text: str) -> tuple[list[str], list[Token], Token] | None:
        """The command's words, the option tokens and the token being typed."""
        *done, current = scan(text)
        if done and done[0].value.startswith("@"):  # acting as another user
            done = done[1:]
        if not done:
            return None if not current.value.startswith("/") else ([], [], current)
        first = done[0].value
        if not first.startswith("/"):
            return None
        words = [first[1:].lower()]
        options: list[Token] = []
        for token in done[1:]:
            if options or ":" in token.value:
                options.append(token)
            else:
                words.append(token.value.lower())
        return words, options, current

    def _spec(self, words: list[str]) -> CommandSpec | None:
        return self.registry.commands.get(".".join(words))

    def _words(self, text: str) -> Iterator[Completion]:
        split = self._split(text)
        if split is None:
            return
        words, options, current = split
        start = -len(current.raw)
        if not words:  # the command's first word
            firsts = {path.split(".")[0] for path in self.registry.commands} | set(CONSOLE_WORDS)
            typed = current.value[1:].lower()
            for word in sorted(firsts):
                if word.startswith(typed):
                    yield Completion("/" + word, start, display="/" + word)
            return
        if words[0] == "help":
            yield from self._help_words(words[1:], current, start)
            return
        spec = self._spec(words)
        if spec is None or (not options and ":" not in current.value):
            yield from self._next_words(words, current, start)
        if spec is None:
            return
        if ":" in current.value:
            name, _, typed = current.value.partition(":")
            option = spec.option(name)
            if option is not None:
                for value in self._fixed_values(option):
                    if value.lower().startswith(typed.lower()):
                        yield Completion(f"{name}:{quoted(value)}", start, display=value)
            return
        given = {token.value.partition(":")[0].replace("_", "-") for token in options}
        for option in spec.options:
            if option.name not in given and option.name.startswith(current.value.lower()):
                yield Completion(
                    option.name + ":", start, display=option.name, display_meta=option.help
                )

    def _next_words(self, words: list[str], current: Token, start: int) -> Iterator[Completion]:
        """The next word of the commands whose path begins with ``words``."""
        prefix = ".".join(words) + "."
        nexts = {
            path[len(prefix) :].split(".")[0]
            for path in self.registry.commands
            if path.startswith(prefix)
        }
        for word in sorted(nexts):
            if word.startswith(current.value.lower()):
                spec = self.registry.commands.get(prefix + word)
                yield Completion(word, start, display_meta=spec.help if spec else "")

    def _help_words(self, after: list[str], current: Token, start: int) -> Iterator[Completion]:
        """``/help`` takes a group or a command's words."""
        if any(":" in word for word in after) or ":" in current.value:
            return
        yield from (
            self._next_words(after, current, start)
            if after
            else (
                Completion(word, start)
                for word in sorted({p.split(".")[0] for p in self.registry.commands})
                if word.startswith(current.value.lower())
            )
        )

    @staticmethod
    def _fixed_values(option: OptionSpec) -> list[str]:
        if option.choices:
            return [str(choice) for choice in option.choices]
        if option.type == "boolean":
            return ["true", "false"]
        return []

    async def _names(self, text: str) -> AsyncIterator[Completion]:
        """The game's names for an option that names things (``weapons:"HMG, L``)."""
        split = self._split(text)
        if split is None or self.names is None:
            return
        words, _, current = split
        spec = self._spec(words)
        name, colon, typed = current.value.partition(":")
        option = spec.option(name) if spec is not None and colon else None
        if option is None or option.autocomplete is None:
            return
        done, _, last = typed.rpartition(",") if option.type == "names" else ("", "", typed)
        listed = [n.strip() for n in done.split(",") if n.strip()]
        taken = {n.casefold() for n in listed}
        for found in await self.names(option.autocomplete, last.strip()):
            if found.casefold() in taken:
                continue
            value = ", ".join([*listed, found])
            yield Completion(f"{name}:{quoted(value)}", -len(current.raw), display=found)


def history_at(path: Path | None) -> History:
    """The history kept in ``path`` between sessions, or in memory if it cannot be kept there."""
    if path is None:
        return InMemoryHistory()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


async def prompt_lines(
    registry: Registry, names: Names | None, history: Path | None
) -> AsyncIterator[str]:
    """Lines typed at the prompt, until Ctrl-D (Ctrl-C clears the line being typed)."""
    session: PromptSession[str] = PromptSession(
        history=history_at(history),
        completer=CommandCompleter(registry, names),
        auto_suggest=AutoSuggestFromHistory(),
        complete_while_typing=False,
    )
    while True:
        try:
            line = await session.prompt_async(PROMPT)
        except KeyboardInterrupt:
            continue
        except EOFError:
            print()
            return
        yield line


__all__ = ["CommandCompleter", "Token", "history_at", "prompt_lines", "quoted", "scan"]
