"""A fake Discord for end-to-end tests: REST and gateway on 127.0.0.1 (see ``server.py``)."""

from __future__ import annotations

from tests.fake_discord.server import (
    FakeDiscord,
    Reply,
    SentInteraction,
    UploadedFile,
    check_command,
)

__all__ = ["FakeDiscord", "Reply", "SentInteraction", "UploadedFile", "check_command"]
