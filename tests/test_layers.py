"""Arrows point one way: rules_core imports nothing of discord, aiosqlite, bot or cogs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import rules_core

FORBIDDEN = ("discord", "aiosqlite", "aiohttp", "bot", "cogs")
# rules_core draws no randomness and does no I/O of its own; pydantic may load these modules,
# so they are checked in rules_core's own source only.
FORBIDDEN_IN_SOURCE = (*FORBIDDEN, "random", "secrets", "sqlite3", "socket", "os")
RULES_CORE = Path(rules_core.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_rules_core_file_imports_a_forbidden_module() -> None:
    offenders = []
    for path in sorted(RULES_CORE.rglob("*.py")):
        for name in imported_modules(path):
            if name.split(".")[0] in FORBIDDEN_IN_SOURCE:
                offenders.append(f"{path.relative_to(RULES_CORE.parent)} imports {name}")
    assert offenders == []


def test_importing_every_system_loads_no_forbidden_module() -> None:
    code = (
        "import sys, importlib, pkgutil, rules_core\n"
        "for m in pkgutil.walk_packages(rules_core.__path__, 'rules_core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(','.join(sorted(bad)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_the_check_would_catch_an_offender(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import discord\nfrom bot.service import X\n")
    assert imported_modules(bad) == {"discord", "bot.service"}
