"""The ``referee`` command: ``referee run``, ``referee console``, ``referee verify FILE``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bot.config import Settings

NO_TOKEN = """\
No DISCORD_TOKEN is set, so the bot cannot log in to Discord.

To get a token:
  1. Open https://discord.com/developers/applications and choose "New Application".
  2. In "Bot", press "Reset Token" and copy the token.
  3. Put it in the environment (or in a file named .env here):
       export DISCORD_TOKEN=your-token-here
  4. Invite the bot with the "bot" and "applications.commands" scopes (see docs/OPERATING.md).

To try the referee without Discord, use the console instead:
  referee console            (or: make console)
"""


def _not_built(what: str) -> int:
    print(f"{what} is not built yet; see the project's open issues.", file=sys.stderr)
    return 2


def cmd_run(args: argparse.Namespace) -> int:
    """Run the Discord bot."""
    settings = Settings()
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(NO_TOKEN, file=sys.stderr)
        return 2
    return _not_built("The Discord bot")


def cmd_console(args: argparse.Namespace) -> int:
    """Play through the same commands without Discord."""
    return _not_built("The console")


def cmd_verify(args: argparse.Namespace) -> int:
    """Verify an exported game."""
    return _not_built("Verification of exported games")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A referee for hex-and-counter wargames: verifiable dice and exact rules.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)")
    run.set_defaults(handler=cmd_run)
    console = sub.add_parser("console", help="play from a terminal or a file, without Discord")
    console.set_defaults(handler=cmd_console)
    verify = sub.add_parser("verify", help="check an exported game: hash chain, dice, rulings")
    verify.add_argument("file", help="the exported game (JSON Lines)")
    verify.set_defaults(handler=cmd_verify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 0
    result: int = args.handler(args)
    return result
