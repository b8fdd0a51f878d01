"""Settings from the environment (and an optional ``.env`` file), via pydantic-settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the program reads from its environment.

    ``DISCORD_TOKEN``       the bot token (only ``referee run`` needs it)
    ``REFEREE_DB``          the SQLite database file (default ``data/referee.db``)
    ``REFEREE_LOG_LEVEL``   DEBUG, INFO, WARNING… (default INFO)
    ``REFEREE_ROLE``        the server role whose members referee every game (default "Referee")
    ``DISCORD_API_BASE``    replaces discord.py's REST base URL (proxies, the local fake Discord)
    ``DISCORD_GATEWAY_URL`` replaces discord.py's gateway URL (likewise)
    ``REFEREE_LIVE_GAMES``  how many games are kept parsed in memory (default 1000, the most
                            recently used; the others are read from the database when used)
    """

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database: Path = Field(default=Path("data/referee.db"), validation_alias="REFEREE_DB")
    log_level: str = Field(default="INFO", validation_alias="REFEREE_LOG_LEVEL")
    referee_role: str = Field(default="Referee", validation_alias="REFEREE_ROLE")
    discord_api_base: str | None = Field(default=None, validation_alias="DISCORD_API_BASE")
    discord_gateway_url: str | None = Field(default=None, validation_alias="DISCORD_GATEWAY_URL")
    live_games: int = Field(default=1000, ge=1, validation_alias="REFEREE_LIVE_GAMES")
