"""Durable storage of games on one of two engines behind one interface (:class:`Repository`):
SQLite (the embedded default: WAL, synchronous=FULL) or PostgreSQL (``postgresql://`` URLs);
the SQL and numbered migrations are written once (:mod:`bot.storage.sql`)."""

from pathlib import Path

from bot.storage.base import (
    Append,
    BoardRow,
    Duplicate,
    GameRow,
    NotifyRow,
    Repository,
    SigningKeyRow,
    StorageConflict,
    StorageUnavailable,
    StoredEntry,
    TimerPlan,
    TimerRow,
    describe,
    is_database_url,
)
from bot.storage.limits import Limits
from bot.storage.repository import SQLiteRepository


async def open_repository(target: Path | str, limits: Limits | None = None) -> Repository:
    """Open (creating if needed) the database of ``target`` and bring its schema up to date: a
    ``postgresql://`` URL opens PostgreSQL (:mod:`bot.storage.postgres`, loaded only then),
    anything else is an SQLite file (:mod:`bot.storage.repository`).

    ``limits``: every call's deadline, the pool's size and the waiting queue's
    (:mod:`bot.storage.limits`; their defaults when None).

    :raises StorageUnavailable: the database cannot be opened or migrated (one sentence).
    """
    if is_database_url(target):
        from bot.storage.postgres import PostgresRepository

        return await PostgresRepository.open(str(target), limits)
    return await SQLiteRepository.open(target, limits)


__all__ = [
    "Append",
    "BoardRow",
    "Duplicate",
    "GameRow",
    "NotifyRow",
    "Repository",
    "SQLiteRepository",
    "SigningKeyRow",
    "StorageConflict",
    "StorageUnavailable",
    "StoredEntry",
    "TimerPlan",
    "TimerRow",
    "describe",
    "is_database_url",
    "open_repository",
]
