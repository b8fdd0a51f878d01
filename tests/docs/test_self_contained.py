"""The docs stand alone: every file they link or name in backticks is in the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.examples import ROOT, _split, doc_files

OUTSIDE = re.compile(r"RULES_BRIEF|COMMANDS\.md|\bseeds/|\.\./shared|/work/shared")
"""Names of the specification sources outside the repository: the docs restate what they say."""
RESTATING: tuple[str, ...] = ()
"""Documents still being restated by their systems' engineers (none now: every one stands alone)."""
LINK = re.compile(r"\]\((?P<target>[^)\s#]+)(?:#[^)]*)?\)")
NAMED = re.compile(r"`(?P<name>[\w./{},-]+\.(?:md|py|txt|sql|jsonl?|toml))`")


def named_files(path: Path) -> list[tuple[int, str]]:
    """Relative links and backticked file names in the prose of one document."""
    _, prose = _split(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for number, line in prose:
        for match in LINK.finditer(re.sub(r"`[^`]*`", "", line)):  # a link is not code
            target = match["target"]
            if not re.match(r"[a-z]+:", target):  # not http:, mailto:
                found.append((number, target))
        found += [  # a path, or a document; a bare module name is named within its package
            (number, match["name"])
            for match in NAMED.finditer(line)
            if "/" in match["name"] or match["name"].endswith(".md")
        ]
    return found


def exists(doc: Path, name: str) -> bool:
    """The name resolves against the document's folder, the repository root or docs/ — after
    expanding ``{a,b}`` alternatives; ``<id>``-style and ``game-…`` placeholders are outputs."""
    alternatives = re.match(r"(?P<head>.*)\{(?P<alts>[^}]*)\}(?P<tail>.*)", name)
    if alternatives:
        return all(
            exists(doc, alternatives["head"] + alt + alternatives["tail"])
            for alt in alternatives["alts"].split(",")
        )
    bases = (doc.parent, ROOT, ROOT / "docs")
    return any((base / name).exists() for base in bases) or any(
        (base / name).exists() for base in (ROOT / "docs" / "guide", ROOT / "docs" / "rules")
    )


REFERENCES = [
    (path, number, name)
    for path in doc_files()
    for number, name in named_files(path)
    if not name.startswith(("game-", "export", "session"))  # files the reader creates
]


@pytest.mark.parametrize(
    ("path", "number", "name"),
    REFERENCES,
    ids=[f"{p.relative_to(ROOT)}:{n}:{name}" for p, n, name in REFERENCES],
)
def test_a_file_the_docs_name_is_in_the_repository(path: Path, number: int, name: str) -> None:
    if path.relative_to(ROOT).as_posix().startswith(RESTATING) and OUTSIDE.search(name):
        pytest.skip(f"{path.relative_to(ROOT)} is being restated by its system's engineer")
    assert exists(path, name), (
        f"{path.relative_to(ROOT)}:{number} names {name}, not in the repository"
    )


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_do_not_send_the_reader_outside_the_repository(path: Path) -> None:
    name = path.relative_to(ROOT).as_posix()
    if name.startswith(RESTATING):
        pytest.skip(f"{name} is being restated by its system's engineer")
    text = path.read_text(encoding="utf-8")
    found = [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert not found, f"{name} names sources outside the repository:\n" + "\n".join(found)


SOURCES = sorted(
    path
    for folder in ("bot", "rules_core", "cogs", "bench", "tests", ".ci")
    for path in (ROOT / folder).rglob("*")
    if path.is_file()
    and path.suffix in {".py", ".html", ".sql", ".txt", ".md", ""}
    and "__pycache__" not in path.parts
    and path != Path(__file__).resolve()
) + [ROOT / name for name in ("Makefile", "Dockerfile", "compose.yaml", "pyproject.toml")]


def test_the_code_does_not_send_the_reader_outside_the_repository() -> None:
    """Docstrings and comments restate the specification too: none names its sources."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in SOURCES
        if path.exists()
        for number, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1
        )
        if OUTSIDE.search(line)
    ]
    assert not found, "the code names sources outside the repository:\n" + "\n".join(found)
