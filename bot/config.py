"""Settings from the environment (and an optional ``.env`` file), via pydantic-settings."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the program reads from its environment.

    ``DISCORD_TOKEN``       the bot token (only ``referee run`` needs it)
    ``REFEREE_DB``          the SQLite database file (default ``data/referee.db``)
    ``REFEREE_DATABASE_URL`` a PostgreSQL database instead (``postgresql://user:pw@host/db``);
                            when set, ``REFEREE_DB`` is not used
    ``REFEREE_LOG_LEVEL``   DEBUG, INFO, WARNING… (default INFO)
    ``REFEREE_LOG_FORMAT``  ``text`` (default: discord.py's lines) or ``json`` (one JSON object a
                            line, for a log collector)
    ``REFEREE_DB_TIMEOUT``  seconds one database call may take, a connection's wait included
                            (default 60); a request past it is told nothing was changed
    ``REFEREE_DB_POOL``     PostgreSQL connections one process opens at most (default 8)
    ``REFEREE_DB_QUEUE``    database calls that may wait for a connection beyond the pool
                            (default 100); more are refused at once
    ``REFEREE_METRICS_PORT`` the port of ``/metrics``, ``/healthz`` and ``/readyz`` (unset: none)
    ``REFEREE_METRICS_HOST`` the address they listen on (default 127.0.0.1; 0.0.0.0 in a
                            container)
    ``REFEREE_ROLE``        the server role whose members referee every game (default "Referee")
    ``DISCORD_API_BASE``    replaces discord.py's REST base URL (proxies, the local fake Discord)
    ``DISCORD_GATEWAY_URL`` replaces discord.py's gateway URL (likewise)
    ``REFEREE_SHARDS``      the discord.py shards this process runs, like ``0-3`` or ``0,2``
                            (with ``REFEREE_SHARD_COUNT``, the bot's number of shards); unset:
                            one process runs the whole bot
    ``REFEREE_EVENT_LOOP``  ``asyncio`` (default: the standard library's event loop) or
                            ``uvloop`` (libuv's, when it is installed; docs/PERFORMANCE.md)
                            (with ``REFEREE_SHARD_COUNT``, the bot's number of shards), or
                            ``auto``: as many as Discord recommends; unset: one process runs the
                            whole bot
    ``REFEREE_CLUSTER``     ``I/N``: this process is number I (from 0) of N, and runs the I-th
                            slice of the shards (all of them: ``auto``, or the shard count)
    ``REFEREE_LIVE_GAMES``  how many games are kept parsed in memory (default 1000, the most
                            recently used; the others are read from the database when used)
    ``REFEREE_DICE``        the dice of ``/game new`` without ``dice:``: ``server`` (default) or
                            ``beacon`` (docs/TRUST.md)
    ``REFEREE_BEACON_CHAIN`` the drand chain of beacon games: ``quicknet`` (default) or a chain
                            file (JSON: name, chain_hash, public_key, period, genesis[, relay])
    ``REFEREE_BEACON_RELAYS`` comma-separated relay URLs, tried in turn (default: drand's own
                            relays for quicknet, or the chain file's ``relay``)
    ``REFEREE_BEACON_TIMEOUT`` seconds one relay gets to answer (default 2)
    ``REFEREE_FOLLOWUP_WINDOW`` seconds Discord takes follow-ups to an interaction (default 900,
                            Discord's 15 minutes; a beacon result later than that is posted in the
                            channel instead; tests shorten it)
    """

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database: Path = Field(default=Path("data/referee.db"), validation_alias="REFEREE_DB")
    database_url: str | None = Field(default=None, validation_alias="REFEREE_DATABASE_URL")
    log_level: str = Field(default="INFO", validation_alias="REFEREE_LOG_LEVEL")
    log_format: Literal["text", "json"] = Field(
        default="text", validation_alias="REFEREE_LOG_FORMAT"
    )
    db_timeout: float = Field(default=60.0, gt=0, validation_alias="REFEREE_DB_TIMEOUT")
    db_pool: int = Field(default=8, ge=1, validation_alias="REFEREE_DB_POOL")
    db_queue: int = Field(default=1000, ge=0, validation_alias="REFEREE_DB_QUEUE")
    metrics_port: int | None = Field(
        default=None, ge=0, le=65535, validation_alias="REFEREE_METRICS_PORT"
    )
    metrics_host: str = Field(default="127.0.0.1", validation_alias="REFEREE_METRICS_HOST")
    referee_role: str = Field(default="Referee", validation_alias="REFEREE_ROLE")
    discord_api_base: str | None = Field(default=None, validation_alias="DISCORD_API_BASE")
    discord_gateway_url: str | None = Field(default=None, validation_alias="DISCORD_GATEWAY_URL")
    live_games: int = Field(default=1000, ge=1, validation_alias="REFEREE_LIVE_GAMES")
    event_loop: Literal["uvloop", "asyncio"] = Field(
        default="asyncio", validation_alias="REFEREE_EVENT_LOOP"
    )
    shards: str | None = Field(default=None, validation_alias="REFEREE_SHARDS")
    shard_count: int | None = Field(default=None, ge=1, validation_alias="REFEREE_SHARD_COUNT")
    cluster: str | None = Field(default=None, validation_alias="REFEREE_CLUSTER")
    dice_default: Literal["server", "beacon"] = Field(
        default="server", validation_alias="REFEREE_DICE"
    )
    beacon_chain: str = Field(default="quicknet", validation_alias="REFEREE_BEACON_CHAIN")
    beacon_relays: str = Field(default="", validation_alias="REFEREE_BEACON_RELAYS")
    beacon_timeout: float = Field(default=2.0, gt=0, validation_alias="REFEREE_BEACON_TIMEOUT")
    followup_window: float = Field(default=900.0, gt=0, validation_alias="REFEREE_FOLLOWUP_WINDOW")

    @field_validator("database_url")
    @classmethod
    def _postgresql_only(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            return None
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("REFEREE_DATABASE_URL takes a postgresql:// URL")
        return value

    @property
    def database_target(self) -> Path | str:
        """The database to open: the PostgreSQL URL if one is set, else the SQLite file."""
        return self.database_url if self.database_url else self.database

    @field_validator("metrics_port", "shard_count", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        self.cluster_slot()
        if self.auto_shards():
            if self.shard_count is not None:
                raise ValueError(
                    "REFEREE_SHARDS=auto asks Discord for the shard count; "
                    "leave REFEREE_SHARD_COUNT unset"
                )
        else:
            self.shard_ids()
        return self

    def auto_shards(self) -> bool:
        """Whether the shard count is Discord's recommendation (``--shards auto``)."""
        return self.shards is not None and self.shards.strip().lower() == "auto"

    def cluster_slot(self) -> tuple[int, int] | None:
        """``(I, N)`` of ``REFEREE_CLUSTER`` (``"1/3"``), or None.

        :raises ValueError: not ``I/N`` with 0 ≤ I < N.
        """
        if self.cluster is None or not self.cluster.strip():
            return None
        first, _, second = self.cluster.replace(" ", "").partition("/")
        try:
            index, count = int(first), int(second)
        except ValueError:
            raise ValueError(
                f"REFEREE_CLUSTER takes this process's number and the number of processes, "
                f"like 0/2; not {self.cluster!r}"
            ) from None
        if count < 1 or not 0 <= index < count:
            raise ValueError(
                f"REFEREE_CLUSTER {self.cluster} names no process: the first number goes from 0 "
                "to the second minus one"
            )
        return index, count

    def shard_ids(self) -> list[int] | None:
        """The shards of ``REFEREE_SHARDS`` (``"0-3"`` → 0, 1, 2, 3; ``"0,2"``), or None (no
        shards, or ``auto``: Discord says how many); with ``REFEREE_CLUSTER`` and a shard count
        but no shards, this process's slice of them.

        :raises ValueError: not a range or list of numbers, or a shard outside the shard count.
        """
        if self.auto_shards():
            return None
        if self.shards is None or not self.shards.strip():
            slot = self.cluster_slot()
            if slot is None:
                return None
            if self.shard_count is None:
                raise ValueError(
                    "REFEREE_CLUSTER needs the shard count: REFEREE_SHARDS=auto (Discord's "
                    "recommendation) or REFEREE_SHARD_COUNT"
                )
            return cluster_shards(self.shard_count, *slot)
        ids: list[int] = []
        try:
            for part in self.shards.replace(" ", "").split(","):
                first, _, last = part.partition("-")
                ids.extend(range(int(first), int(last or first) + 1))
        except ValueError:
            raise ValueError(
                f"REFEREE_SHARDS takes shard numbers like 0-3 or 0,2; not {self.shards!r}"
            ) from None
        if self.shard_count is None:
            raise ValueError("REFEREE_SHARDS needs REFEREE_SHARD_COUNT, the bot's number of shards")
        if not ids or min(ids) < 0 or max(ids) >= self.shard_count:
            raise ValueError(
                f"REFEREE_SHARDS must name shards from 0 to {self.shard_count - 1} "
                f"(REFEREE_SHARD_COUNT is {self.shard_count})"
            )
        return sorted(set(ids))


def cluster_shards(shard_count: int, index: int, processes: int) -> list[int]:
    """The shards process ``index`` of ``processes`` runs: an equal, contiguous slice (the first
    slices one longer when the count does not divide evenly).

    >>> cluster_shards(8, 0, 2), cluster_shards(8, 1, 2), cluster_shards(5, 2, 3)
    ([0, 1, 2, 3], [4, 5, 6, 7], [4])
    """
    size, extra = divmod(shard_count, processes)
    start = index * size + min(index, extra)
    return list(range(start, start + size + (1 if index < extra else 0)))
