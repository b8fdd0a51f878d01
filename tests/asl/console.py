"""ASL played through the console, line by line, with scripted dice: the sentence tests.

:func:`play` runs the lines through :func:`bot.console.run_console` — the code ``referee console``
runs, on a real SQLite file, with ``--json`` and ``--dice`` — and checks what every refusal must
be: it cites a rule, rolls no die (every scripted face is used by the lines that were logged) and
changes nothing (the log entries of the accepted lines follow each other with no gap).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.console import ConsoleOptions, run_console

TABLE = """\
/game new system:asl
@carol /game seat side:Axis
@bob /game seat side:Allied
"""
"""Alice (the game's referee, holding no seat) acts for either side; carol holds Axis, bob Allied.

A referee who holds a seat acts for the other side only through a proposal its player confirms
(issue 22), so the sentence tests' referee sits at no side: each of their lines is ruled at once.
"""

DEFENCE = (
    TABLE
    + """\
/asl unit add name:A side:Axis kind:squad quality:4-6-7
/asl unit add name:B side:Axis kind:squad quality:4-6-7
/asl unit add name:L side:Axis kind:leader quality:9-1
/asl weapon add name:HMG side:Axis kind:sw_mg mg:hmg b:12 rof:3 repair:3 owner:A normal-range:16
/asl weapon add name:MMG side:Axis kind:sw_mg mg:mmg rof:2 repair:3 owner:B normal-range:12
@bob /asl unit add name:R side:Allied kind:squad quality:4-4-7
/asl phase side:Allied phase:mph
"""
)
"""The Axis DEFENDER in the Allied MPh: squads A (HMG) and B (MMG), a 9-1 leader L."""

READS = frozenset({"/game status", "/game log", "/game forces", "/game export"})
"""Table commands that read the log (their reply shows its head, not a new entry)."""

RULE = re.compile(r"\(((?:OCS|CWB) [A-Za-z0-9.]+|[A-Z][A-Z0-9.]*)\)$")
"""A refusal's rule: ``(A9.8)``, ``(FB16.1)``; OCS's and CWB's ``(OCS 12.8e)``, ``(CWB Supply)``."""


@dataclass
class Played:
    """The console's answer to each line, by line number (1-based, as the console counts)."""

    results: dict[int, dict[str, Any]]
    lines: list[str]

    def number(self, text: str, nth: int = 1) -> int:
        """The line number of the ``nth`` line that is exactly ``text``."""
        found = [i + 1 for i, line in enumerate(self.lines) if line.strip() == text.strip()]
        assert len(found) >= nth, f"no line {text!r}"
        return found[nth - 1]

    def reply(self, line: int | str) -> dict[str, Any]:
        """The reply of an accepted line."""
        result = self.results[line if isinstance(line, int) else self.number(line)]
        assert result["ok"], result
        reply: dict[str, Any] = result["reply"]
        return reply

    def refused(self, line: int | str) -> tuple[str, str | None]:
        """(refusal, the rule it cites or None) of a refused line."""
        result = self.results[line if isinstance(line, int) else self.number(line)]
        assert not result["ok"], result
        error: str = result["error"]
        cited = RULE.search(error)
        return error, cited.group(1) if cited else None

    def facts(self, line: int | str) -> dict[str, str]:
        return {subject: value for subject, value in self.reply(line)["facts"]}

    def rules(self, line: int | str) -> list[str]:
        return [step["rule"] for step in self.reply(line)["steps"]]

    def texts(self, line: int | str) -> list[str]:
        return [f"{step['rule']}: {step['text']}" for step in self.reply(line)["steps"]]


async def play(tmp_path: Path, text: str, dice: str = "") -> Played:
    """Run ``text`` (one command a line, ``@bob`` to act as bob) through the console as alice."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    source = tmp_path / "session.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    faces = tuple(int(face) for face in dice.split(",") if face.strip())
    options = ConsoleOptions(
        database=tmp_path / "game.db",
        user="alice",
        json=True,
        dice=faces,
        export_dir=tmp_path,
    )
    out = io.StringIO()
    await run_console(options, str(source), out=out)
    results = {}
    for raw in out.getvalue().splitlines():
        result = json.loads(raw)
        results[result["line"]] = result
    assert sorted(results) == list(range(1, len(lines) + 1)), out.getvalue()
    logged = [
        r["reply"]
        for r in results.values()
        if r["ok"] and r["reply"].get("seq") is not None and not r["reply"].get("preview")
    ]
    seqs = [reply["seq"] for reply in logged if reply["command"] not in READS]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "a refused line was logged"
    used = sum(len(reply["dice"]) for reply in logged)
    assert used == len(faces), f"{used} of {len(faces)} scripted faces used"
    for number, result in results.items():
        if not result["ok"] and result["error_type"] == "IllegalAction":
            assert RULE.search(result["error"]), f"line {number} cites no rule: {result}"
    return Played(results, lines)


__all__ = ["DEFENCE", "TABLE", "Played", "play"]
