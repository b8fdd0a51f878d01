"""Durable storage of games on one of two engines behind one interface (:class:`Repository`):
SQLite (the embedded default: WAL, synchronous=FULL) or PostgreSQL (``postgresql://`` URLs);
the SQL and numbered migrations are written once (:mod:`bot.storage.sql`)."""

from bot.storage.base import (
    Append,
    BoardRow,
    Duplicate,
    GameRow,
    NotifyRow,
    Repository,
    StorageConflict,
    StorageUnavailable,
    StoredEntry,
    TimerPlan,
    TimerRow,
    describe,
    is_database_url,
)
from bot.storage.repository import SQLiteRepository

__all__ = [
    "Append",
    "BoardRow",
    "Duplicate",
    "GameRow",
    "NotifyRow",
    "Repository",
    "SQLiteRepository",
    "StorageConflict",
    "StorageUnavailable",
    "StoredEntry",
    "TimerPlan",
    "TimerRow",
    "describe",
    "is_database_url",
]
