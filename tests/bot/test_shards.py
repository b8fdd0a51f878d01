"""``referee run --shards IDS --shard-count N`` (``REFEREE_SHARDS``, ``REFEREE_SHARD_COUNT``):
the shards a process runs, refused in one sentence when they do not fit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import Settings
from bot.discord_ui.client import RefereeBot, ShardedRefereeBot, make_bot


@pytest.mark.parametrize(
    ("shards", "count", "ids"),
    [("0-3", 8, [0, 1, 2, 3]), ("4-7", 8, [4, 5, 6, 7]), ("0,2", 3, [0, 2]), ("1", 2, [1])],
)
def test_the_shards_of_a_process(shards: str, count: int, ids: list[int]) -> None:
    settings = Settings(REFEREE_SHARDS=shards, REFEREE_SHARD_COUNT=count)
    assert settings.shard_ids() == ids
    bot = make_bot(settings, extensions=())
    assert isinstance(bot, ShardedRefereeBot)
    assert (bot.shard_ids, bot.shard_count) == (ids, count)


def test_no_shards_is_the_whole_bot_in_one_process() -> None:
    bot = make_bot(Settings(), extensions=())
    assert type(bot) is RefereeBot


@pytest.mark.parametrize(
    ("shards", "count", "said"),
    [
        ("0-3", None, "REFEREE_SHARDS needs REFEREE_SHARD_COUNT"),
        ("0-8", 8, "REFEREE_SHARDS must name shards from 0 to 7"),
        ("first", 8, "REFEREE_SHARDS takes shard numbers like 0-3"),
    ],
)
def test_shards_that_do_not_fit_are_refused(shards: str, count: int | None, said: str) -> None:
    with pytest.raises(ValidationError, match=said):
        Settings(REFEREE_SHARDS=shards, REFEREE_SHARD_COUNT=count)


def test_referee_run_with_shards_beyond_the_count_is_one_sentence(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run", "--shards", "0-3", "--shard-count", "2"],
        capture_output=True, text=True, timeout=180, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "not-used"},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        "REFEREE_SHARDS must name shards from 0 to 1 (REFEREE_SHARD_COUNT is 2)."
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("cluster", "count", "ids"),
    [("0/2", 8, [0, 1, 2, 3]), ("1/2", 8, [4, 5, 6, 7]), ("2/3", 5, [4]), ("0/1", 3, [0, 1, 2])],
)
def test_a_cluster_process_runs_its_slice_of_the_shards(
    cluster: str, count: int, ids: list[int]
) -> None:
    settings = Settings(REFEREE_CLUSTER=cluster, REFEREE_SHARD_COUNT=count)
    assert settings.shard_ids() == ids
    bot = make_bot(settings, extensions=())
    assert isinstance(bot, ShardedRefereeBot)
    assert (bot.shard_ids, bot.shard_count) == (ids, count)


def test_shards_auto_makes_a_sharded_bot_whose_count_discord_gives() -> None:
    bot = make_bot(Settings(REFEREE_SHARDS="auto", REFEREE_CLUSTER="1/2"), extensions=())
    assert isinstance(bot, ShardedRefereeBot)
    count: int | None = bot.shard_count
    assert (bot.shard_ids, count) == (None, None)  # until GET /gateway/bot answers


@pytest.mark.parametrize(
    ("cluster", "count", "said"),
    [
        ("2/2", 8, "REFEREE_CLUSTER 2/2 names no process"),
        ("first", 8, "REFEREE_CLUSTER takes this process's number and the number of processes"),
        ("0/2", None, "REFEREE_CLUSTER needs the shard count"),
    ],
)
def test_a_cluster_that_does_not_fit_is_refused(cluster: str, count: int | None, said: str) -> None:
    with pytest.raises(ValidationError, match=said):
        Settings(REFEREE_CLUSTER=cluster, REFEREE_SHARD_COUNT=count)
