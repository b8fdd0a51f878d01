"""Durable storage of games: SQLite (WAL, synchronous=FULL), numbered migrations, one repository."""

from bot.storage.repository import Append, GameRow, Repository, StorageConflict, StoredEntry

__all__ = ["Append", "GameRow", "Repository", "StorageConflict", "StoredEntry"]
