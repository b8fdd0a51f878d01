"""The docs-example runner itself: it finds what it should and fails when a doc is wrong."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.docs.examples import (
    ConventionError,
    check_inline,
    inline_commands,
    registry,
    run_session,
    sessions,
)

COMMANDS = registry()

DOC = """\
# A doc

Start with `/game new system:asl title:"Hill 621"`, then `/game seat
side:Axis` (a span may run over a line break).

```referee
# dice: 3,4
/game new system:asl
/roll dice:DR
```
```text
OUTPUT
```

```sh
/game this is a shell block, not a session
```
"""


def write(tmp_path: Path, text: str) -> Path:
    # the collectors name files relative to the repository, so the doc lives in it for a moment
    path = Path(__file__).resolve().parent / f"_runner_{tmp_path.name}_{len(text)}.md"
    path.write_text(text, encoding="utf-8")
    return path


MakeDoc = Callable[[str], Path]


@pytest.fixture
def doc(tmp_path: Path) -> Iterator[MakeDoc]:
    made: list[Path] = []

    def make(text: str) -> Path:
        made.append(write(tmp_path, text))
        return made[-1]

    yield make
    for path in made:
        path.unlink()


def test_a_session_is_run_on_a_fresh_database_with_its_dice_and_a_wrong_output_is_caught(
    doc: MakeDoc, tmp_path: Path
) -> None:
    (session,) = sessions(doc(DOC))
    assert session.dice == "3,4"
    assert session.expected == ("OUTPUT",)
    out, err, _ = run_session(session, tmp_path / "a")
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "[SCRIPTED DICE] #1 New asl game: Axis, Allied — you"
    assert lines[3].startswith("  Referee: you (the creator): ")
    assert lines[4].startswith("  anchor: #1 · ")  # the entry's anchor ends its reply
    assert lines[5] == "[SCRIPTED DICE] #2 DR 7 (3,4) — you"
    assert lines != list(session.expected)  # what the test compares: this doc would fail
    again, _, _ = run_session(session, tmp_path / "b")
    assert again == out  # reproducible: commitment, game id and hashes included


def test_unused_dice_show_on_standard_error(doc: MakeDoc, tmp_path: Path) -> None:
    (session,) = sessions(doc(DOC.replace("# dice: 3,4", "# dice: 3,4,5")))
    _, err, code = run_session(session, tmp_path)
    assert "scripted dice left unused: 5" in err
    assert code == 1


def test_a_referee_block_without_its_text_block_breaks_the_convention(doc: MakeDoc) -> None:
    with pytest.raises(ConventionError, match="followed immediately by a `text` block"):
        sessions(doc("```referee\n/game status\n```\n\nsome words\n```text\nx\n```\n"))
    with pytest.raises(ConventionError):
        sessions(doc("```referee\n/game status\n```\n"))


def test_inline_spans_are_found_across_line_breaks_and_not_in_fenced_blocks(doc: MakeDoc) -> None:
    found = [span.code for span in inline_commands(doc(DOC))]
    assert found == ['/game new system:asl title:"Hill 621"', "/game seat side:Axis"]


@pytest.mark.parametrize(
    "code",
    [
        "/game new system:asl",
        "/game seat side:Axis",
        '/roll dice:DR reason:"Sniper check"',
        "/asl repair weapon [unit] [preview]",
        "/asl fire [weapons] [units] …",
        "/game …",
        "/asl",
        "/asl weapon add",
        "/help",
        "/help group:asl",
        "/sync",
        "/ping",
    ],
)
def test_valid_inline_commands_pass(code: str) -> None:
    assert check_inline(code, COMMANDS) is None


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("/gmae new", "there is no command /gmae"),
        ("/game start", "there is no command /game start"),
        ("/game seat:Axis", "is a group of commands"),
        ("/game void entry:N reason:…", "entry must be a whole number"),
        ("/game seed phrase:…", "needs a real value"),
        ("/game new options:", "needs a real value"),
        ("/game new sytem:asl", "has no option 'sytem'"),
        ("/game new system:chess", "system"),
        ("/asl repair [weapon]", "weapon is required"),
        ("/asl repair weapon unit", "unit is optional"),
        ("/help chess", "there is no command or group 'chess'"),
        ("/help group:chess", "there is no command group"),
    ],
)
def test_invalid_inline_commands_are_caught(code: str, problem: str) -> None:
    found = check_inline(code, COMMANDS)
    assert found is not None and problem in found, found
