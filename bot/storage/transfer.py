"""Copying a whole database between engines and backing one up: ``referee migrate-db`` and
``referee backup``.

:func:`copy_database` reads every table of the source in one consistent snapshot (SQLite: one read
transaction; PostgreSQL: one ``REPEATABLE READ`` read-only transaction), so it may run while the
bot writes, and writes them into an *empty* target (its schema made by the usual migrations) in
one transaction: the target holds all of it or nothing. Rows are copied as they are — the log's
bodies and hashes byte for byte — so an exported game of the target is the source's, and its chain
verifies. :func:`backup` of an SQLite file uses SQLite's online backup API; of a PostgreSQL
database, it is a copy into a new SQLite file (restored with ``referee migrate-db``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.storage import open_repository, sql
from bot.storage.base import StorageUnavailable, describe, is_database_url
from rules_core.words import counted

CHUNK = 5_000
"""Rows read and written at a time."""


@dataclass(frozen=True)
class Copied:
    """What a copy or backup wrote: rows per table."""

    rows: dict[str, int]

    def summary(self) -> str:
        """``"2 games, 3 seeds, 41 entries, 60 dice"``, and the status boards, timers, server
        settings, notice choices and signing keys if there are any (``", 1 status board"``)."""
        names = {
            "games": ("game", "games"), "entries": ("entry", "entries"),
            "seeds": ("seed", "seeds"), "rolls": ("die", "dice"),
            "boards": ("status board", "status boards"), "timers": ("timer", "timers"),
            "server_settings": ("server setting", "server settings"),
            "notify": ("notice choice", "notice choices"),
            "signing_keys": ("signing key", "signing keys"),
        }  # fmt: skip
        always = ("games", "seeds", "entries", "rolls")
        return ", ".join(
            counted(self.rows.get(t, 0), *names[t])
            for t in sql.TABLES
            if t in always or self.rows.get(t)
        )


class _Source:
    """The tables of a database, read in one snapshot."""

    async def version(self) -> int:
        raise NotImplementedError

    def rows(self, table: str) -> AsyncIterator[tuple[list[str], list[Sequence[Any]]]]:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class _SQLiteSource(_Source):
    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise StorageUnavailable(f"There is no SQLite database file {path}.")
        try:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
            self.db.execute("BEGIN")  # one snapshot for every table
            self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise StorageUnavailable(f"Cannot read the SQLite database {path}: {exc}.") from exc
        self.path = path

    async def version(self) -> int:
        try:
            row = self.db.execute(sql.SCHEMA_VERSION).fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            raise StorageUnavailable(f"{self.path} is not a referee database.")
        return int(row[0])

    async def rows(self, table: str) -> AsyncIterator[tuple[list[str], list[Sequence[Any]]]]:
        cursor = self.db.execute(f"SELECT * FROM {table}")
        columns = [d[0] for d in cursor.description]
        while chunk := cursor.fetchmany(CHUNK):
            yield columns, chunk

    async def close(self) -> None:
        self.db.close()


class _PostgresSource(_Source):
    def __init__(self, url: str) -> None:
        self.url = url
        self.connection: Any = None
        self.transaction: Any = None

    async def start(self) -> None:
        import asyncpg

        try:
            self.connection = await asyncpg.connect(self.url, timeout=10)
        except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
            raise StorageUnavailable(
                f"Cannot open the PostgreSQL database {describe(self.url)}: {exc}."
            ) from exc
        self.transaction = self.connection.transaction(isolation="repeatable_read", readonly=True)
        await self.transaction.start()

    async def version(self) -> int:
        import asyncpg

        try:
            found = await self.connection.fetchval(sql.SCHEMA_VERSION)
        except asyncpg.UndefinedTableError:
            found = None
        if found is None:
            raise StorageUnavailable(f"{describe(self.url)} is not a referee database.")
        return int(found)

    async def rows(self, table: str) -> AsyncIterator[tuple[list[str], list[Sequence[Any]]]]:
        cursor = await self.connection.cursor(f"SELECT * FROM {table}")
        while chunk := await cursor.fetch(CHUNK):
            yield list(chunk[0].keys()), [tuple(r) for r in chunk]

    async def close(self) -> None:
        if self.transaction is not None:
            await self.transaction.rollback()
        if self.connection is not None:
            await self.connection.close()


async def _source(target: Path | str) -> _Source:
    if is_database_url(target):
        source = _PostgresSource(str(target))
        await source.start()
        return source
    return _SQLiteSource(Path(target))


async def copy_database(source: Path | str, target: Path | str) -> Copied:
    """Copy every game of ``source`` into the empty database ``target`` (either engine each).

    :raises StorageUnavailable: a database cannot be opened, the source is no referee database or
        has another schema version, or the target is not empty (one sentence each).
    """
    reader = await _source(source)
    try:
        version = await reader.version()
        repo = await open_repository(target)  # the schema, by the usual migrations
        try:
            if await repo.schema_version() != version:
                raise StorageUnavailable(
                    f"The source is at schema version {version} and this referee at "
                    f"{await repo.schema_version()}; open the source with this version first."
                )
        finally:
            await repo.close()
        if is_database_url(target):
            return await _write_postgres(str(target), reader)
        return await _write_sqlite(Path(target), reader)
    finally:
        await reader.close()


def _refuse_not_empty(games: int, target: Path | str) -> None:
    if games:
        raise StorageUnavailable(
            f"The target {describe(target)} already holds {counted(games, 'game')}; migrate-db "
            "copies into an empty database only."
        )


async def _write_sqlite(path: Path, reader: _Source) -> Copied:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("BEGIN IMMEDIATE")
        try:
            (games,) = db.execute("SELECT count(*) FROM games").fetchone()
            _refuse_not_empty(int(games), path)
            counts: dict[str, int] = {}
            for table in sql.TABLES:
                counts[table] = 0
                if table == "signing_keys":  # the source's keys replace any the target made
                    db.execute(f"DELETE FROM {table}")
                async for columns, chunk in reader.rows(table):
                    marks = ", ".join("?" for _ in columns)
                    db.executemany(
                        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                        chunk,
                    )
                    counts[table] += len(chunk)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return Copied(counts)


async def _write_postgres(url: str, reader: _Source) -> Copied:
    import asyncpg

    connection = await asyncpg.connect(url, timeout=10)
    try:
        async with connection.transaction():
            await connection.execute("LOCK TABLE games IN EXCLUSIVE MODE")
            _refuse_not_empty(int(await connection.fetchval("SELECT count(*) FROM games")), url)
            counts: dict[str, int] = {}
            for table in sql.TABLES:
                counts[table] = 0
                if table == "signing_keys":  # the source's keys replace any the target made
                    await connection.execute(f"DELETE FROM {table}")
                async for columns, chunk in reader.rows(table):
                    await connection.copy_records_to_table(table, records=chunk, columns=columns)
                    counts[table] += len(chunk)
            # new games, timers and keys continue after the copied ids
            for table in ("games", "timers", "signing_keys"):
                await connection.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"COALESCE((SELECT max(id) FROM {table}), 0) + 1, false)"
                )
    finally:
        await connection.close()
    return Copied(counts)


def backup(source: Path | str, destination: Path) -> Copied | None:
    """Back up ``source`` into the new SQLite file ``destination``.

    An SQLite source is copied page by page with SQLite's online backup API (the bot may keep
    writing; the copy is one consistent state). A PostgreSQL source is copied row by row into a
    new SQLite file (see :func:`copy_database`); restore it with ``referee migrate-db``.

    :returns: the rows copied (None for an SQLite file: copied whole, not row by row).
    :raises StorageUnavailable: the destination exists, or the source cannot be read.
    """
    if destination.exists():
        raise StorageUnavailable(f"{destination} exists already; name a new file for the backup.")
    if is_database_url(source):
        import asyncio

        try:
            return asyncio.run(copy_database(source, destination))
        except BaseException:
            destination.unlink(missing_ok=True)
            raise
    path = Path(source)
    if not path.is_file():
        raise StorageUnavailable(f"There is no SQLite database file {path}.")
    try:
        source_db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            target_db = sqlite3.connect(destination)
            try:
                source_db.backup(target_db)
                (check,) = target_db.execute("PRAGMA integrity_check").fetchone()
                if check != "ok":
                    raise StorageUnavailable(f"The backup {destination} failed its check: {check}.")
            finally:
                target_db.close()
        finally:
            source_db.close()
    except sqlite3.Error as exc:
        destination.unlink(missing_ok=True)
        raise StorageUnavailable(f"Cannot back up {path}: {exc}.") from exc
    return None


def count_rows(path: Path) -> Copied:
    """Rows per table of an SQLite file (what a backup holds)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        present = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        return Copied(
            {
                t: int(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                for t in sql.TABLES
                if t in present  # a backup of a database this version has not opened yet
            }
        )
    finally:
        db.close()


__all__ = ["CHUNK", "Copied", "backup", "copy_database", "count_rows"]
