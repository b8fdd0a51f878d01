"""A game's status board is kept beside the game on both engines (migration 002): recorded,
replaced, read back, and outside the log (an export and the game's row do not change)."""

from __future__ import annotations

from bot.log.export import export_game
from bot.service.game_service import GameService
from bot.storage import BoardRow, Repository
from bot.table import commands as gc
from tests.bot.conftest import ALICE, HERE, end_game, start_game


async def test_a_board_is_recorded_replaced_and_kept_out_of_the_log(
    repo: Repository, service: GameService
) -> None:
    await start_game(service)
    game = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert game is not None
    assert await repo.board(game.id) is None
    before = await export_game(repo, game)
    await repo.set_board(game.id, None, True)
    assert await repo.board(game.id) == BoardRow(game.id, None, True)
    message = 1_311_768_467_294_899_695  # a Discord id: 64 bits
    await repo.set_board(game.id, message, True)
    await repo.set_board(game.id, message, False)
    assert await repo.board(game.id) == BoardRow(game.id, message, False)
    after = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert after is not None and after.head_seq == game.head_seq
    assert await export_game(repo, after) == before
    await service.handle(HERE, ALICE, "roll-1", gc.RollDice(dice="dr"))
    assert await repo.board(game.id) == BoardRow(game.id, message, False)


async def test_a_channels_board_is_its_latest_games(repo: Repository, service: GameService) -> None:
    """``channel_board``, which the board keeper asks after every burst of actions, reads the
    board of the channel's latest game only: none before ``/game board``, an ended game's own
    until the next game begins, then the new game's (none yet)."""
    assert await repo.channel_board(HERE.guild_id, HERE.channel_id) is None
    await start_game(service)
    game = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert game is not None
    assert await repo.channel_board(HERE.guild_id, HERE.channel_id) is None
    await repo.set_board(game.id, 7, True)
    assert await repo.channel_board(HERE.guild_id, HERE.channel_id) == BoardRow(game.id, 7, True)
    assert await repo.channel_board(HERE.guild_id, HERE.channel_id + 1) is None
    await end_game(service)
    assert await repo.channel_board(HERE.guild_id, HERE.channel_id) == BoardRow(game.id, 7, True)
    await service.handle(HERE, ALICE, "new-again", gc.GameNew(system="toy"))
    latest = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert latest is not None and latest.id != game.id
    assert await repo.channel_board(HERE.guild_id, HERE.channel_id) is None
