"""The operations tests use the end-to-end fixtures (a fake Discord, bots as processes)."""

from tests.e2e.conftest import bots, fake_discord

__all__ = ["bots", "fake_discord"]
