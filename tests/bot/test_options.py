"""Every option validated by type: no floats, NaN or infinities reach the log, every integer
option has a range, and options of the wrong shape are one sentence, not a crash."""

from __future__ import annotations

import pytest

from bot.commands import build_registry
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import Repository
from bot.table import commands as gc
from rules_core.errors import InvalidInput
from tests.bot.conftest import ALICE, HERE

SYSTEMS = InstalledSystems()


def test_every_integer_option_of_every_command_has_a_range() -> None:
    registry = build_registry(SYSTEMS)
    unbounded = [
        f"/{' '.join(spec.words)} {option.name}"
        for specs in registry.groups().values()
        for spec in specs
        for option in spec.options
        if option.type == "integer" and (option.min_value is None or option.max_value is None)
    ]
    assert unbounded == []


@pytest.mark.parametrize(
    ("system", "options"),
    [
        ("cwb", '{"cwb_ammo_loss_pct": NaN}'),
        ("cwb", '{"cwb_ammo_loss_pct": Infinity}'),
        ("cwb", '{"cwb_ammo_loss_pct": -Infinity}'),
        ("cwb", '{"cwb_ammo_loss_pct": 2.5}'),
        ("cwb", '{"anything": 1e400}'),
        ("cwb", '{"anything": 99999999999999999999}'),
        ("cwb", "anything=" + "9" * 5000),
        ("asl", '{"nationalities": 5}'),
        ("asl", '{"nationalities": [1, 2]}'),
        ("ocs", '{"anything": NaN}'),
    ],
)
async def test_options_that_are_not_whole_numbers_text_or_flags_are_refused(
    repo: Repository, system: str, options: str
) -> None:
    service = GameService(repo, SYSTEMS)
    with pytest.raises(InvalidInput) as refused:
        await service.handle(HERE, ALICE, "n", gc.GameNew(system=system, options=options[:1000]))
    assert refused.value.user_message.count(". ") == 0
    assert await repo.active_game(HERE.guild_id, HERE.channel_id) is None
