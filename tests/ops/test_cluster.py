"""A cluster of two bot processes on one PostgreSQL database, run from ``compose.yaml``'s own
command lines (``referee run --shards auto --cluster I/2``) under a supervisor standing for
Docker's restart policy, against the fake Discord (which recommends two shards and lets two
identify at once). One process is killed while a beacon declaration of its server waits for its
round: the other keeps serving its own server, the supervisor restarts the dead one, its shard
serves again, and the declaration is resolved exactly once — by the process that owns it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.storage import open_repository
from tests.e2e.conftest import answer
from tests.fake_discord import FakeDiscord
from tests.ops.supervisor import ROOT, Supervisor, compose_services
from tests.pgserver import PostgresServer

pytestmark = [pytest.mark.e2e]

TIMEOUT = 120.0


async def test_a_killed_process_of_a_cluster_is_restarted_and_serves_its_shards_again(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = await postgres_server.create_database()
    relay = LocalRelay(LocalChain.new(period=1))
    await relay.start()
    chain = tmp_path / "chain.json"
    chain.write_text(json.dumps({**relay.info.to_json(), "relay": relay.url}))
    async with FakeDiscord(extra_guilds=("table-2",), shards=2, max_concurrency=2) as discord:
        services = compose_services(
            ROOT / "compose.yaml", {"DISCORD_TOKEN": discord.token, "POSTGRES_PASSWORD": "pw"}
        )
        assert [(s.name, s.argv[1:], s.restart) for s in services] == [
            ("bot-0", ["run", "--shards", "auto", "--cluster", "0/2"], "unless-stopped"),
            ("bot-1", ["run", "--shards", "auto", "--cluster", "1/2"], "unless-stopped"),
        ]
        assert services[0].environment["DISCORD_TOKEN"] == discord.token
        here = {  # what differs from a Docker host: the database's address, Discord's
            "REFEREE_DATABASE_URL": url,
            "DISCORD_API_BASE": discord.api_base,
            "DISCORD_GATEWAY_URL": discord.gateway_url,
            "REFEREE_DB": str(tmp_path / "referee.db"),
            "REFEREE_METRICS_PORT": "0",
            "REFEREE_LOG_FORMAT": "text",
            "REFEREE_BEACON_CHAIN": str(chain),
            "REFEREE_BEACON_TIMEOUT": "0.5",
        }
        supervisor = Supervisor(services, tmp_path, {s.name: here for s in services})
        await supervisor.start()
        try:
            await discord.wait_until_shard_ready(0, timeout=TIMEOUT)
            await discord.wait_until_shard_ready(1, timeout=TIMEOUT)
            assert discord.gateway_bot_requests >= 2  # each process asked Discord
            assert sorted(shard for _, shard, _ in discord.identified) == [0, 1]
            assert {count for _, _, count in discord.identified} == {2}
            for channel, dice in (("table-1", "server"), ("table-2", "beacon")):
                new = await answer(
                    discord, ["game", "new"], {"system": "asl", "dice": dice}, channel=channel
                )
                assert "New asl game" in new.embeds[0]["title"], new.data
                seat = await answer(discord, ["game", "seat"], {"side": "Axis"}, channel=channel)
                assert seat.embeds, seat.data
            relay.down = True  # the round of table-2's roll will not come before the kill
            roll = await discord.slash(["roll"], {"dice": "2d6"}, channel="table-2")
            declared = await roll.next_reply(TIMEOUT)
            assert "declared: waiting for beacon round" in declared.text, declared.data
            pending = await roll.next_reply(TIMEOUT)
            assert "stays pending" in pending.content, pending.data

            supervisor.kill("bot-1")
            served = await answer(discord, ["roll"], {"dice": "DR"}, channel="table-1")
            assert served.embeds, served.data  # the other process serves its server meanwhile
            relay.down = False
            await discord.wait_until_shard_ready(1, count=2, timeout=TIMEOUT)  # restarted
            assert supervisor.starts == {"bot-0": 1, "bot-1": 2}
            posted = await discord.wait_for_event("table-2", "create", timeout=TIMEOUT)
            assert "beacon round" in posted.text and "Total" in posted.text, posted.message
            again = await answer(discord, ["roll"], {"dice": "DR"}, channel="table-2")
            assert "declared: waiting for beacon round" in again.text, again.data  # it serves
        finally:
            codes = await supervisor.stop()
            await relay.stop()
    assert codes == {"bot-0": 0, "bot-1": 0}, (supervisor.log("bot-0"), supervisor.log("bot-1"))
    repo = await open_repository(url)
    try:
        guild_2 = int(discord.channels["table-2"]["guild_id"])
        row = await repo.active_game(guild_2, int(discord.channels["table-2"]["id"]))
        assert row is not None
        entries = await repo.entries(row.id)
        first_roll = next(e.seq for e in entries if e.kind == "declared")
        resolutions = [e for e in entries if e.kind == "resolved"]
        assert [e.data()["declared"] for e in resolutions] == [first_roll], entries
    finally:
        await repo.close()
    first, second = supervisor.log("bot-0"), supervisor.log("bot-1")
    assert "Running shards [0] of 2 (2 may identify at once)" in first
    assert "Running shards [1] of 2 (2 may identify at once)" in second
    assert "Resuming" not in first  # table-2's declaration is not bot-0's to resolve
    assert "Resuming 1 declaration waiting for a beacon round" in second
    assert "Traceback" not in first + second
