"""The bot tests' fixtures (``repo`` and ``service`` on each engine) serve the storage tests too."""

from tests.bot.conftest import repo, service

__all__ = ["repo", "service"]
