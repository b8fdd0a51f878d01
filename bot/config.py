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
    ``REFEREE_ROLE``        the server role whose members referee every game (default "Referee")
    ``DISCORD_API_BASE``    replaces discord.py's REST base URL (proxies, the local fake Discord)
    ``DISCORD_GATEWAY_URL`` replaces discord.py's gateway URL (likewise)
    ``REFEREE_SHARDS``      the discord.py shards this process runs, like ``0-3`` or ``0,2``
                            (with ``REFEREE_SHARD_COUNT``, the bot's number of shards); unset:
                            one process runs the whole bot
    ``REFEREE_EVENT_LOOP``  ``asyncio`` (default: the standard library's event loop) or
                            ``uvloop`` (libuv's, when it is installed; docs/PERFORMANCE.md)
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
    referee_role: str = Field(default="Referee", validation_alias="REFEREE_ROLE")
    discord_api_base: str | None = Field(default=None, validation_alias="DISCORD_API_BASE")
    discord_gateway_url: str | None = Field(default=None, validation_alias="DISCORD_GATEWAY_URL")
    live_games: int = Field(default=1000, ge=1, validation_alias="REFEREE_LIVE_GAMES")
    event_loop: Literal["uvloop", "asyncio"] = Field(
        default="asyncio", validation_alias="REFEREE_EVENT_LOOP"
    )
    shards: str | None = Field(default=None, validation_alias="REFEREE_SHARDS")
    shard_count: int | None = Field(default=None, ge=1, validation_alias="REFEREE_SHARD_COUNT")
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

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        self.shard_ids()
        return self

    def shard_ids(self) -> list[int] | None:
        """The shards of ``REFEREE_SHARDS`` (``"0-3"`` → 0, 1, 2, 3; ``"0,2"``), or None.

        :raises ValueError: not a range or list of numbers, or a shard outside the shard count.
        """
        if self.shards is None or not self.shards.strip():
            return None
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
