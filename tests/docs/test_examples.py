"""Every command example in the docs runs: console sessions give exactly the output shown, and
inline commands are valid commands with valid options (the convention: docs/DEVELOPING.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.examples import (
    ROOT,
    Inline,
    Session,
    check_inline,
    doc_files,
    inline_commands,
    registry,
    run_session,
    sessions,
)

SESSIONS = [session for path in doc_files() for session in sessions(path)]
INLINE = [span for path in doc_files() for span in inline_commands(path)]
COMMANDS = registry()


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s.name)
def test_a_console_session_in_the_docs_prints_exactly_what_the_doc_shows(
    session: Session, tmp_path: Path
) -> None:
    out, err, _ = run_session(session, tmp_path)
    assert err == "", f"{session.name}: the console complained:\n{err}"
    assert out.splitlines() == list(session.expected), f"{session.name}: the console printed\n{out}"


@pytest.mark.parametrize("span", INLINE, ids=lambda s: s.name)
def test_an_inline_command_in_the_docs_is_a_valid_command(span: Inline) -> None:
    problem = check_inline(span.code, COMMANDS)
    assert problem is None, f"{span.name}: {problem}"


def test_the_docs_hold_console_sessions_and_inline_commands() -> None:
    """The collectors find what the docs hold (a regex gone wrong would find nothing)."""
    assert len(SESSIONS) >= 3
    assert len(INLINE) >= 30
    where = {s.path.relative_to(ROOT).as_posix() for s in SESSIONS}
    assert {"README.md", "docs/CONSOLE.md", "docs/OPERATING.md"} <= where
