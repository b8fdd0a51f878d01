"""Arrows point one way: rules_core imports nothing of discord, aiosqlite, bot or cogs."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Iterator
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
"""No module of bot/ or rules_core/ is longer than this, so each reads in one sitting."""

MAY_IMPORT: dict[str, frozenset[str]] = {
    "bot": frozenset(),
    "config": frozenset(),
    "errors": frozenset(),
    "event_loop": frozenset(),
    "models": frozenset(),
    "web": frozenset(),
    "dice": frozenset({"errors", "models", "ops.metrics"}),
    "storage": frozenset({"dice", "errors", "ops.metrics"}),
    # running it: failure logs, metrics, health checks, shards (bot/ops); ``ops.metrics``
    # imports nothing of bot/, so that the layers below may record their figures
    "ops": frozenset({"config", "errors"}),
    "ops.metrics": frozenset(),
    "log": frozenset({"dice", "storage"}),
    "stats": frozenset({"models"}),
    "render": frozenset({"models", "stats"}),
    "commands": frozenset({"errors", "models", "table.commands"}),
    "service": frozenset(
        {"dice", "errors", "log", "models", "ops.metrics", "storage", "table.commands"}
    ),
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
            "event_loop",
            "models",
            "ops",
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
    "cli": frozenset(
        {"config", "console", "discord_ui", "errors", "log", "ops", "service", "storage"}
    ),
    "__main__": frozenset({"cli"}),
}
"""Each folder (or top-level module) of bot/ and the others it may import. ``table.commands``
(the table commands' declarations) is vocabulary the pipeline and the registry read; only the
pipeline ``service.game_service`` imports the rest of ``table`` (its handlers), which in turn
never imports it."""
DISCORD_FOLDERS = frozenset({"discord_ui", "render"})
"""Only the Discord side (and the embed renderer, and cogs/) import discord.py."""


PACKAGES = ("bot", "bot.table", "bot.service", "bot.log", "bot.stats", "bot.ops")
"""Packages whose names a ``from … import`` names beside its modules (checked one by one)."""


def part_of(module: str) -> str:
    """The layer of a bot module: its folder, or a named module when it is a layer of its own."""
    parts = module.split(".")[1:]
    if not parts:
        return "bot"
    if parts[:2] in (["table", "commands"], ["service", "game_service"], ["ops", "metrics"]):
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
            if node.module in PACKAGES:
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
            if top != "bot" or name in PACKAGES:
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


# --- each module reads in one sitting, each function on a screen or two ----------------------

MAX_FUNCTION_LINES = 100
"""No function of bot/ or rules_core/ has more lines than this, its docstring aside."""

KNOWN_LONG: frozenset[str] = frozenset()
"""The modules and functions still too long when the check came, each to be split by its
owner. The list only shrinks: the check fails on a listed one that is no longer too long, so
whoever splits it removes it here in the same commit."""


def _code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's lines from its ``def`` to its last line (decorators aside), its docstring
    aside."""
    lines = (node.end_lineno or node.lineno) - node.lineno + 1
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        lines -= (first.end_lineno or first.lineno) - first.lineno + 1
    return lines


def too_long(roots: Iterable[Path]) -> dict[str, int]:
    """Every module of ``roots`` over MAX_MODULE_LINES lines and every function (at any depth,
    methods too: ``Class.method``) over MAX_FUNCTION_LINES, with its count; a module is named
    by its path from the roots' parent (``bot/service/core.py``), a function after it
    (``bot/service/core.py: Core.commit``)."""
    found: dict[str, int] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            name = path.relative_to(root.parent).as_posix()
            text = path.read_text(encoding="utf-8")
            if (count := len(text.splitlines())) > MAX_MODULE_LINES:
                found[name] = count
            for function, lines in _functions(ast.parse(text, filename=str(path)), ""):
                if lines > MAX_FUNCTION_LINES:
                    found[f"{name}: {function}"] = lines
    return found


def _functions(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
    """Every function under ``node`` by its qualified name, with its lines of code."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}{child.name}", _code_lines(child)
            yield from _functions(child, f"{prefix}{child.name}.")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.")
        else:
            yield from _functions(child, prefix)


def unlisted_and_stale(
    found: dict[str, int], known: frozenset[str]
) -> tuple[dict[str, int], list[str]]:
    """What ``found`` holds that ``known`` does not list (new offenders), and what ``known``
    lists that is no longer too long (to be struck from the list)."""
    unlisted = {name: count for name, count in found.items() if name not in known}
    return unlisted, sorted(known - set(found))


def test_no_module_or_function_is_too_long_to_read() -> None:
    unlisted, stale = unlisted_and_stale(too_long((BOT, RULES_CORE)), KNOWN_LONG)
    assert unlisted == {}, (
        f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function (its "
        "docstring aside): split them"
    )
    assert stale == [], "no longer too long: remove them from KNOWN_LONG in tests/test_layers.py"


def test_the_length_check_would_catch_a_long_module_or_function(tmp_path: Path) -> None:
    root = tmp_path / "bot"
    root.mkdir()
    (root / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    body = "    x = 1\n" * MAX_FUNCTION_LINES
    docstring = '    """A docstring\n' + "    of many lines\n" * 30 + '    """\n'
    # 100 lines with its def, and a docstring that does not count
    (root / "fine.py").write_text(f"def under():\n{docstring}" + "    x = 1\n" * 99)
    (root / "bad.py").write_text(
        f"def over():\n{docstring}{body}"
        "class C:\n"
        "    async def method(self):\n"
        "        def inner():\n" + "            y = 2\n" * MAX_FUNCTION_LINES
    )
    found = too_long([root])
    assert found == {
        "bot/long.py": MAX_MODULE_LINES + 1,
        "bot/bad.py: over": MAX_FUNCTION_LINES + 1,
        "bot/bad.py: C.method": MAX_FUNCTION_LINES + 2,
        "bot/bad.py: C.method.inner": MAX_FUNCTION_LINES + 1,
    }
    known = frozenset({"bot/long.py", "bot/bad.py: over", "bot/fine.py: under"})
    assert unlisted_and_stale(found, known) == (
        {"bot/bad.py: C.method": MAX_FUNCTION_LINES + 2, "bot/bad.py: C.method.inner": 101},
        ["bot/fine.py: under"],
    )


# --- no two modules import each other, even for types ------------------------------------------


def module_imports(root: Path) -> dict[str, set[str]]:
    """The modules of the package at ``root`` each module imports (at any depth of the file,
    ``if TYPE_CHECKING:`` too); ``from bot.storage import sql`` imports ``bot.storage.sql``, not
    the package's face."""
    paths = {
        ".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted(root.rglob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                submodules = {f"{node.module}.{alias.name}" for alias in node.names} & set(paths)
                names |= submodules
                if len(submodules) < len(node.names):
                    names.add(node.module)
        graph[module] = {name for name in names if name in paths and name != module}
    return graph


def import_loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another, directly or around a loop (the strongly
    connected components of more than one module, Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while (other := stack.pop()) != module:
                group.append(other)
            if group:
                loops.append(sorted([module, *group]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(loops)


def test_no_modules_import_each_other() -> None:
    assert import_loops(module_imports(BOT)) == []
    assert import_loops(module_imports(RULES_CORE)) == []


def test_the_loop_check_would_catch_modules_importing_each_other(tmp_path: Path) -> None:
    root = tmp_path / "bot"
    (root / "storage").mkdir(parents=True)
    (root / "storage" / "__init__.py").write_text("from bot.storage.base import Repository\n")
    (root / "storage" / "sql.py").write_text("")
    (root / "storage" / "base.py").write_text(
        "from typing import TYPE_CHECKING\nfrom bot.storage import sql\n"
        "if TYPE_CHECKING:\n    from bot.storage.engine import Engine\n"
    )
    (root / "storage" / "engine.py").write_text("from bot.storage import base, sql\n")
    assert import_loops(module_imports(root)) == [["bot.storage.base", "bot.storage.engine"]]


# --- the pipeline is assembled from handlers, not from layers of classes ----------------------


def inherited_layers(root: Path) -> list[str]:
    """Classes of ``root``'s ``service`` and ``table`` folders that extend a class defined in
    either (a mixin layer): each command's handler is a function given what it needs
    (docs/DEVELOPING.md, "One GameService, one pipeline, a handler per command"). The commands'
    declarations (``table/commands.py``, models on one base) are data, not layers."""
    paths = [
        path
        for folder in ("service", "table")
        for path in sorted((root / folder).glob("*.py"))
        if path.name != "commands.py"
    ]
    trees = {
        path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in paths
    }
    ours = {
        node.name
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    return [
        f"{path.relative_to(root.parent).as_posix()}: {node.name}({base.id})"
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for base in node.bases
        if isinstance(base, ast.Name) and base.id in ours
    ]


def test_the_service_has_no_mixin_layers(tmp_path: Path) -> None:
    assert inherited_layers(BOT) == []
    (tmp_path / "bot" / "service").mkdir(parents=True)
    (tmp_path / "bot" / "table").mkdir()
    (tmp_path / "bot" / "service" / "core.py").write_text("class Core:\n    pass\n")
    (tmp_path / "bot" / "table" / "roll.py").write_text(
        "from bot.service.core import Core\nclass Rolls(Core):\n    pass\n"
    )
    assert inherited_layers(tmp_path / "bot") == ["bot/table/roll.py: Rolls(Core)"]
