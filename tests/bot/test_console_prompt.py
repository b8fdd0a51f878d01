"""The console at a terminal: a real ``referee console`` driven through a pseudo-terminal
(line editing, history, completion, a typo's suggestion), and its completer directly.

Regression: at a prompt, Up printed ``^[[A`` (no line editing nor history), Tab did nothing,
``/gmae status`` got no suggestion and ``/roll 3d6`` was "no command /roll 3d6".
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pexpect
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from bot.commands.registry import build_registry
from bot.console.prompt import CommandCompleter
from bot.service.systems import InstalledSystems

ROOT = Path(__file__).resolve().parents[2]
UP = "\x1b[A"
TAB = "\t"
TIMEOUT = 60


def spawn(tmp_path: Path) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    env.update(HOME=str(tmp_path), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="200")
    return pexpect.spawn(
        sys.executable,
        ["-m", "bot", "console", "--db", str(tmp_path / "prompt.db")],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 200),
    )


def complete(console: pexpect.spawn, typed: str, added: str) -> None:
    """Type ``typed`` and Tab; wait until the completion has drawn ``added`` after it."""
    console.send(typed + TAB)
    console.expect(re.escape(added) + r"\x1b\[")


def end_input(console: pexpect.spawn) -> None:
    """Ctrl-D until the console ends.

    A Ctrl-D typed while the last command still runs, or while prompt_toolkit prints a reply
    above its prompt, meets the terminal in cooked mode: there it is the line discipline's end
    of file and never reaches the prompt (CI saw the console wait forever after ``Log head:
    #5``). Printable keys, Tab and arrows typed then wait in the terminal for the next prompt,
    so only Ctrl-D is sent again. Waiting for the prompt's text instead was not reliable: when
    a reply is printed above a prompt already drawn, the prompt may not be written again.
    """
    for _ in range(TIMEOUT):
        console.sendcontrol("d")
        if console.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=1) == 0:
            return
    raise AssertionError(f"the console did not end on Ctrl-D: {console.before!r}")


def test_the_prompt_edits_recalls_completes_and_suggests(tmp_path: Path) -> None:
    console = spawn(tmp_path)
    try:
        console.expect("Tab completes")
        console.send("/gmae status\r")
        console.expect(r"line 1: There is no command /gmae status\. Did you mean /game status\?")
        for typed, added in (("/ga", "me"), (" ne", "w"), (" system:a", "sl")):
            complete(console, typed, added)
        console.send("\r")
        console.expect("New asl game: Axis, Allied")
        console.send("/game seat Axis\r")  # the first option without its name
        console.expect("you take the Axis seat")
        console.send("/asl unit add name:Alpha side:Axis kind:squad quality:4-6-7\r")
        console.expect("A1: Alpha: German squad 4-6-7")
        for typed, added in (("/asl unit set name:Al", "pha"), (" status:bro", "ken")):
            complete(console, typed, added)  # the game's unit name, then a choice
        console.send("\r")
        console.expect("A10: Alpha is broken")
        console.send("/game status\r")
        console.expect("Log head: #4")
        console.send("/roll 2d6XX\b\b\r")  # a typo mended with Backspace: /roll 2d6
        console.expect(r"2d6 = \d+ \(")
        console.send(UP + UP + "\r")  # the line before the last: /game status again
        console.expect("Log head: #5")
        end_input(console)
    finally:
        console.close()
    assert console.exitstatus == 0, console.before
    history = (tmp_path / ".referee_history").read_text(encoding="utf-8")
    assert "+/game new system:asl\n" in history and "+/roll 2d6\n" in history


def completions(text: str) -> list[str]:
    registry = build_registry(InstalledSystems())

    async def names(kind: str, typed: str) -> list[str]:
        known = {"weapon": ["HMG", "LMG", "MMG"], "side": ["Axis", "Allied"]}
        return [n for n in known.get(kind, []) if typed.lower() in n.lower()]

    async def collect() -> list[str]:
        completer = CommandCompleter(registry, names)
        found = completer.get_completions_async(Document(text), CompleteEvent())
        return [completion.text async for completion in found]

    return asyncio.run(collect())


def test_the_completer_offers_commands_options_choices_and_names() -> None:
    assert completions("/as") == ["/asl"]
    assert completions("/asl wea") == ["weapon"]
    assert completions("/asl weapon ") == ["add", "destroy", "dm", "kia", "list", "remove"]
    assert completions("/asl fire weap") == ["weapons:"]
    assert "sustained:" in completions("/asl fire weapons:HMG ")
    assert "weapons:" not in completions("/asl fire weapons:HMG ")
    assert completions("/asl phase phase:pf") == ["phase:pfph"]
    assert completions("/asl fire tpbf:t") == ["tpbf:true"]
    assert completions("@bob /asl repair weapon:m") == ["weapon:HMG", "weapon:LMG", "weapon:MMG"]
    assert completions('/asl fire weapons:"HMG, L') == ['weapons:"HMG, LMG"']
    assert completions("/game seat side:") == ["side:Axis", "side:Allied"]
    assert completions("/help a") == ["asl"]
    assert completions("/help asl f") == ["fire"]
    assert completions("not a command") == []
