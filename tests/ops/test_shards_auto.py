"""``referee run --shards auto``: the bot asks Discord how many shards it needs
(``GET /gateway/bot``) and identifies them as fast as Discord's ``max_concurrency`` allows —
shards of different buckets (shard id modulo ``max_concurrency``) at once, the next shard of a
bucket 5 s later — where discord.py alone waits 5 s between any two."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import BotLauncher, answer
from tests.fake_discord import FakeDiscord

pytestmark = [pytest.mark.e2e]


async def test_shards_auto_runs_discords_count_and_identifies_by_max_concurrency(
    tmp_path: Path,
) -> None:
    async with FakeDiscord(extra_guilds=("table-2", "table-3", "table-4"), shards=4,
                           max_concurrency=2) as discord:  # fmt: skip
        bot = await BotLauncher(discord, tmp_path).start(["-m", "bot", "run", "--shards", "auto"])
        try:
            for shard in range(4):
                await discord.wait_until_shard_ready(shard)
            at = {shard: when for when, shard, _ in discord.identified}
            assert {count for _, _, count in discord.identified} == {4}
            assert discord.gateway_bot_requests == 1
            # buckets 0 and 1 at once; each bucket's second shard 5 s after its first
            assert abs(at[1] - at[0]) < 2.5, at
            assert at[2] - at[0] >= 4.9 and at[3] - at[1] >= 4.9, at
            assert abs(at[3] - at[2]) < 2.5, at
            for channel in ("table-1", "table-2", "table-3", "table-4"):  # every shard serves
                new = await answer(discord, ["game", "new"], {"system": "asl"}, channel=channel)
                assert "New asl game" in new.embeds[0]["title"], new.data
        finally:
            code = await bot.stop()
        assert code == 0, bot.output()
    assert "Running shards [0, 1, 2, 3] of 4 (2 may identify at once)" in bot.output()
    assert "Traceback" not in bot.output()


def test_shards_auto_with_a_shard_count_is_refused_in_one_sentence(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "bot", "run", "--shards", "auto", "--shard-count", "4"],
        capture_output=True, text=True, timeout=180, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "not-used"},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        "REFEREE_SHARDS=auto asks Discord for the shard count; leave REFEREE_SHARD_COUNT unset."
    ), done.stderr
    assert "Traceback" not in done.stderr
