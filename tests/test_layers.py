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


# --- inside bot/: the folders' arrows point one way (docs/DEVELOPING.md, "bot — the application")

BOT = Path(__file__).resolve().parent.parent / "bot"
MAX_MODULE_LINES = 700
"""No module of bot/ is longer than this, so each reads in one sitting."""

MAY_IMPORT: dict[str, frozenset[str]] = {
    "bot": frozenset(),
    "config": frozenset(),
    "errors": frozenset(),
    "models": frozenset(),
    "web": frozenset(),
    "dice": frozenset({"errors", "models"}),
    "storage": frozenset({"dice"}),
    "log": frozenset({"dice", "storage"}),
    "stats": frozenset({"models"}),
    "render": frozenset({"models", "stats"}),
    "commands": frozenset({"errors", "models", "table.commands"}),
    "service": frozenset({"dice", "errors", "log", "models", "storage", "table.commands"}),
    # the pipeline: it gathers the handlers of the table commands (bot/table) into one lookup
    "service.game_service": frozenset(
        {"dice", "errors", "log", "models", "storage", "table", "service"}
    ),
    # /game setup reads a scenario's lines as the console reads commands (bot/commands)
    "table": frozenset(
        {"commands", "dice", "errors", "log", "models", "service", "stats", "storage", "web"}
    ),
    "discord_ui": frozenset(
        {
            "commands",
            "config",
            "dice",
            "errors",
            "models",
            "render",
            "service",
            "service.game_service",
            "stats",
            "storage",
        }
    ),
    "console": frozenset(
        {
            "commands",
            "config",
            "dice",
            "errors",
            "models",
            "render",
            "service",
            "service.game_service",
            "storage",
        }
    ),
    "cli": frozenset({"config", "console", "discord_ui", "errors", "log", "service", "storage"}),
    "__main__": frozenset({"cli"}),
}
"""Each folder (or top-level module) of bot/ and the others it may import. ``table.commands``
(the table commands' declarations) is vocabulary the pipeline and the registry read; only the
pipeline ``service.game_service`` imports the rest of ``table`` (its handlers), which in turn
never imports it."""
DISCORD_FOLDERS = frozenset({"discord_ui", "render"})
"""Only the Discord side (and the embed renderer, and cogs/) import discord.py."""


def part_of(module: str) -> str:
    """The layer of a bot module: its folder, or a named module when it is a layer of its own."""
    parts = module.split(".")[1:]
    if not parts:
        return "bot"
    if parts[:2] in (["table", "commands"], ["service", "game_service"]):
        return ".".join(parts[:2])
    return parts[0]


def bot_imports(path: Path) -> set[str]:
    """Every module of bot a file imports (``from bot.table import commands`` names
    ``bot.table.commands``), at any depth of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module in ("bot", "bot.table", "bot.service", "bot.log", "bot.stats"):
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def layer_offenders(root: Path) -> list[str]:
    """The imports of the modules under ``root`` (a folder called bot) that break the arrows."""
    offenders = []
    for path in sorted(root.rglob("*.py")):
        module = ".".join(("bot", *path.relative_to(root).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        source = part_of(module)
        allowed = MAY_IMPORT.get(source, MAY_IMPORT.get(source.split(".")[0]))
        if allowed is None:
            offenders.append(f"{module}: bot/{source} has no row in MAY_IMPORT")
            continue
        for name in sorted(bot_imports(path)):
            top = name.split(".")[0]
            if top == "discord" and source.split(".")[0] not in DISCORD_FOLDERS:
                offenders.append(f"{module} imports {name}")
            if top != "bot" or name in ("bot", "bot.table", "bot.service", "bot.log", "bot.stats"):
                continue
            target = part_of(name)
            if target.split(".")[0] == source.split(".")[0] and target != "service.game_service":
                continue  # within one folder
            wide = target.split(".")[0] in allowed and target != "service.game_service"
            if target not in allowed and not wide:
                offenders.append(f"{module} imports {name}")
    return offenders


def test_bot_folders_import_one_way() -> None:
    assert layer_offenders(BOT) == []


def test_every_bot_folder_has_a_row() -> None:
    folders = {p.name for p in BOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in BOT.glob("*.py") if p.stem != "__init__"}
    assert folders | modules <= set(MAY_IMPORT)


def test_the_bot_check_would_catch_offenders(tmp_path: Path) -> None:
    root = tmp_path / "bot"
    (root / "storage").mkdir(parents=True)
    (root / "storage" / "bad.py").write_text("from bot.service.core import Core\n")
    (root / "stats").mkdir()
    (root / "stats" / "bad.py").write_text("import discord\n")
    (root / "table").mkdir()
    (root / "table" / "bad.py").write_text("from bot.service.game_service import GameService\n")
    (root / "service").mkdir()
    (root / "service" / "bad.py").write_text("from bot.table import roll\nimport bot.console\n")
    (root / "service" / "fine.py").write_text("from bot.table import commands as gc\n")
    (root / "nowhere.py").write_text("x = 1\n")
    assert layer_offenders(root) == [
        "bot.nowhere: bot/nowhere has no row in MAY_IMPORT",
        "bot.service.bad imports bot.console",
        "bot.service.bad imports bot.table.roll",
        "bot.stats.bad imports discord",
        "bot.storage.bad imports bot.service.core",
        "bot.table.bad imports bot.service.game_service",
    ]


def long_modules(root: Path) -> list[str]:
    """Modules under ``root`` longer than MAX_MODULE_LINES lines."""
    return [
        f"{path.relative_to(root.parent)}: {count} lines"
        for path in sorted(root.rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]


def test_no_bot_module_is_too_long_to_read(tmp_path: Path) -> None:
    assert long_modules(BOT) == []
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert long_modules(tmp_path / "bot") == [f"bot/long.py: {MAX_MODULE_LINES + 1} lines"]
