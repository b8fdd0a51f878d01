"""The ``referee`` command: ``referee run``, ``referee console``, ``referee verify FILE``,
``referee key show|rotate``, ``referee backup FILE``, ``referee migrate-db SOURCE TARGET``."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.config import Settings
from bot.errors import SettingsUnusable
from bot.storage.base import StorageUnavailable, is_database_url
from rules_core.system import GameSystem

NO_TOKEN = """\
No DISCORD_TOKEN is set, so the bot cannot log in to Discord.

To get a token:
  1. Open https://discord.com/developers/applications and choose "New Application".
  2. In "Bot", press "Reset Token" and copy the token.
  3. Put it in the environment (or in a file named .env here):
       export DISCORD_TOKEN=your-token-here
  4. Invite the bot with the "bot" and "applications.commands" scopes (see docs/OPERATING.md).

To try the referee without Discord, use the console instead:
  make console               (or: .venv/bin/referee console)
"""


def _settings() -> Settings:
    """The settings from the environment; a bad value ends the program with one sentence."""
    try:
        return Settings()
    except ValidationError as exc:
        error = exc.errors()[0]
        name = error["loc"][0] if error["loc"] else "a setting"
        raise SystemExit(f"{name}: {error['msg']}.") from None


def cmd_run(args: argparse.Namespace) -> int:
    """Run the Discord bot."""
    overrides = {
        "REFEREE_SHARDS": args.shards,
        "REFEREE_SHARD_COUNT": args.shard_count,
        "REFEREE_CLUSTER": args.cluster,
    }
    for name, value in overrides.items():
        if value is not None:
            os.environ[name] = str(value)
    settings = _settings()
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(NO_TOKEN, file=sys.stderr)
        return 2
    from bot.discord_ui.client import attach_game_service, run

    return run(settings, configure=attach_game_service)


def _systems(plugins: Sequence[str]) -> dict[str, GameSystem[Any, Any]] | None:
    """The installed systems plus any from ``--plugin MODULE`` (a module exposing ``SYSTEM``)."""
    if not plugins:
        return None
    from bot.service.systems import InstalledSystems

    systems = dict(InstalledSystems())
    for name in plugins:
        system: GameSystem[Any, Any] = importlib.import_module(name).SYSTEM
        systems[system.name] = system
    return systems


def _dice_script(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise SystemExit(
            f"--dice takes faces separated by commas, like 3,5,6; not {text!r}"
        ) from None


def cmd_console(args: argparse.Namespace) -> int:
    """Play through the same commands without Discord."""
    from bot.console import ConsoleOptions, console_place, run_console
    from bot.errors import UserError

    database = _database(args.db)
    options = ConsoleOptions(
        database=database,
        channel=args.channel,
        guild=args.guild,
        user=args.as_user,
        admins=tuple(args.admin or ()),
        dice=_dice_script(args.dice),
        json=args.json,
        export_dir=Path(args.out),
    )
    try:
        console_place(options)
    except UserError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        return asyncio.run(run_console(options, args.file, _systems(args.plugin or ())))
    except (StorageUnavailable, SettingsUnusable) as exc:
        print(exc, file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``referee console … | head``)
        sys.stderr.close()
        return 1


def cmd_verify(args: argparse.Namespace) -> int:
    """Verify an exported game."""
    from bot.log.verify import Anchor, verify_file
    from bot.service.systems import InstalledSystems

    try:
        anchors = [Anchor.parse(text) for text in args.anchor or ()]
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    systems = _systems(args.plugin or ()) or InstalledSystems()
    report = verify_file(Path(args.file), systems, args.key or (), anchors)
    print(report.message)
    return report.exit_status


def cmd_key(args: argparse.Namespace) -> int:
    """Show the bot's signing keys, or rotate: sign with a new key, keep the old one listed."""
    from bot.log.signing import rotate, signer
    from bot.storage import open_repository

    async def keys() -> list[str]:
        repo = await open_repository(_database(args.db))
        try:
            found = await (rotate(repo) if args.action == "rotate" else signer(repo))
        finally:
            await repo.close()
        return [
            f"{found.public_key} in use since {found.current.created_at}",
            *(f"{k.public_key} retired (made {k.created_at})" for k in reversed(found.retired)),
        ]

    try:
        print("\n".join(asyncio.run(keys())))
    except StorageUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


def _database(given: str | None) -> Path | str:
    """``--db`` as given (a file or a URL), else the settings' database."""
    if given:
        return given if is_database_url(given) else Path(given)
    return _settings().database_target


def cmd_backup(args: argparse.Namespace) -> int:
    """Back up the database into a new SQLite file."""
    from bot.storage.base import describe
    from bot.storage.transfer import backup, count_rows

    source = _database(args.db)
    destination = Path(args.file)
    try:
        copied = backup(source, destination) or count_rows(destination)
    except StorageUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"Backed up {describe(source)} to {destination}: {copied.summary()}.")
    return 0


def cmd_migrate_db(args: argparse.Namespace) -> int:
    """Copy every game of one database into another, empty one (SQLite or PostgreSQL each)."""
    from bot.storage.base import describe
    from bot.storage.transfer import copy_database

    source, target = _database(args.source), _database(args.target)
    try:
        copied = asyncio.run(copy_database(source, target))
    except StorageUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"Copied {describe(source)} to {describe(target)}: {copied.summary()}.")
    return 0


def _add_verify_and_key(sub: Any) -> None:
    """``referee verify`` (with the bot's keys and the anchors it posted) and ``referee key``."""
    verify = sub.add_parser(
        "verify",
        help="check an exported game: hash chain, dice, rulings",
        description="Check an exported game: the hash chain, every die, every ruling replayed. "
        "Exit status: 0 everything verified; 1 a mismatch (the file is not what the bot wrote) or "
        "no export; 3 the chain and every die agree but the game was played under another "
        "version of the rules and the rulings from the entry named on were NOT verified.",
    )
    verify.add_argument("file", help="the exported game (JSON Lines)")
    verify.add_argument(
        "--key",
        action="append",
        metavar="KEY",
        help="the bot's published public key (hex): the export must be signed by it",
    )
    verify.add_argument(
        "--anchor",
        action="append",
        metavar="ANCHOR",
        help="what the bot posted: #17 · 3f9a2c71, 17:3f9a2c71, a signed head, a commitment",
    )
    verify.add_argument(
        "--plugin", action="append", metavar="MODULE", help="load a game system from MODULE.SYSTEM"
    )
    verify.set_defaults(handler=cmd_verify)
    key = sub.add_parser(
        "key", help="the bot's signing key: show it (and the retired ones), or rotate it"
    )
    key.add_argument("action", choices=("show", "rotate"), help="show the keys, or rotate")
    key.add_argument(
        "--db",
        help="an SQLite file or a postgresql:// URL "
        "(default: REFEREE_DATABASE_URL, else REFEREE_DB)",
    )
    key.set_defaults(handler=cmd_key)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A referee for hex-and-counter wargames: verifiable dice and exact rules.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)")
    run.add_argument(
        "--shards",
        metavar="IDS",
        help="run only these shards, like 0-3, or auto: Discord's count (REFEREE_SHARDS)",
    )
    run.add_argument(
        "--shard-count",
        type=int,
        metavar="N",
        help="the bot's number of shards, with --shards or --cluster (REFEREE_SHARD_COUNT)",
    )
    run.add_argument(
        "--cluster",
        metavar="I/N",
        help="this is process I (from 0) of N: run the I-th slice of the shards (REFEREE_CLUSTER)",
    )
    run.set_defaults(handler=cmd_run)
    console = sub.add_parser("console", help="play from a terminal or a file, without Discord")
    console.add_argument("file", nargs="?", help="a file of command lines (- or none: stdin)")
    console.add_argument(
        "--db",
        help="an SQLite file or a postgresql:// URL "
        "(default: REFEREE_DATABASE_URL, else REFEREE_DB)",
    )
    console.add_argument("--channel", default="console", help="the channel to play in")
    console.add_argument(
        "--guild",
        type=int,
        metavar="ID",
        help="play in this Discord server's channel whose id --channel gives (the bot's database)",
    )
    console.add_argument(
        "--as", dest="as_user", default="you", help="who you are (a line may start with @name)"
    )
    console.add_argument(
        "--admin", action="append", metavar="USER", help="treat USER as a server administrator"
    )
    console.add_argument("--dice", help="scripted dice faces, e.g. 3,5,6 (marked on every result)")
    console.add_argument("--json", action="store_true", help="print one JSON object per result")
    console.add_argument("--out", default=".", help="where /game export writes its file")
    console.add_argument(
        "--plugin", action="append", metavar="MODULE", help="load a game system from MODULE.SYSTEM"
    )
    console.set_defaults(handler=cmd_console)
    _add_verify_and_key(sub)
    backup = sub.add_parser(
        "backup", help="back up the database into a new SQLite file, while the bot runs"
    )
    backup.add_argument("file", help="the new backup file")
    backup.add_argument(
        "--db",
        help="an SQLite file or a postgresql:// URL "
        "(default: REFEREE_DATABASE_URL, else REFEREE_DB)",
    )
    backup.set_defaults(handler=cmd_backup)
    migrate = sub.add_parser(
        "migrate-db", help="copy every game into another, empty database (SQLite or PostgreSQL)"
    )
    migrate.add_argument("source", help="an SQLite file or a postgresql:// URL")
    migrate.add_argument("target", help="an empty (or new) SQLite file or PostgreSQL database")
    migrate.set_defaults(handler=cmd_migrate_db)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 0
    result: int = args.handler(args)
    return result
