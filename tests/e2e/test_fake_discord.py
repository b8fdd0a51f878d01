"""The fake Discord refuses what real Discord refuses (tested without a bot, over HTTP)."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.fake_discord import FakeDiscord, SentInteraction


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def pending(discord: FakeDiscord, age: float = 0.0) -> SentInteraction:
    """An interaction as if just dispatched to a bot ``age`` seconds ago."""
    sent = SentInteraction("111", "tok-111", {"type": 2, "channel_id": "5"}, time.monotonic() - age)
    discord._interactions[sent.token] = sent
    return sent


async def post(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    async with http.post(url, json=body) as response:
        assert response.headers["Content-Type"] == "application/json"
        data: dict[str, Any] = await response.json()
        return response.status, data


async def test_callback_answers_with_the_message_then_refuses_a_second(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    sent = pending(fake_discord)
    url = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    status, data = await post(http, url, {"type": 4, "data": {"content": "x" * 2000}})
    assert status == 200
    assert data["interaction"]["response_message_id"] == data["resource"]["message"]["id"]
    assert (await sent.next_reply(1)).content == "x" * 2000
    status, data = await post(http, url, {"type": 4, "data": {"content": "again"}})
    assert (status, data["code"]) == (400, 40060)


async def test_content_over_2000_characters_is_invalid_form_body(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    pending(fake_discord)
    url = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    status, data = await post(http, url, {"type": 4, "data": {"content": "x" * 2001}})
    assert (status, data["code"]) == (400, 50035)


async def test_a_callback_after_three_seconds_is_unknown_interaction(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    pending(fake_discord, age=3.5)
    url = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    status, data = await post(http, url, {"type": 4, "data": {"content": "late"}})
    assert (status, data["code"]) == (404, 10062)


async def test_follow_up_needs_an_acknowledged_interaction(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    pending(fake_discord)
    url = f"{fake_discord.api_base}/webhooks/{fake_discord.application_id}/tok-111"
    status, data = await post(http, url, {"content": "too early"})
    assert (status, data["code"]) == (404, 10015)


async def test_follow_ups_stop_fifteen_minutes_after_the_interaction(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    sent = pending(fake_discord)
    callback = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    assert (await post(http, callback, {"type": 5, "data": {}}))[0] == 200
    url = f"{fake_discord.api_base}/webhooks/{fake_discord.application_id}/tok-111"
    assert (await post(http, url, {"content": "in time"}))[0] == 200
    sent.sent_at -= 15 * 60 + 1
    status, data = await post(http, url, {"content": "too late"})
    assert (status, data["code"]) == (401, 50027)


async def test_rest_needs_the_bot_token(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    url = f"{fake_discord.api_base}/users/@me"
    async with http.get(url) as response:
        assert response.status == 401
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    async with http.get(url, headers=headers) as response:
        assert response.status == 200
        assert response.headers["X-RateLimit-Remaining"] == "49"
        assert (await response.json())["id"] == fake_discord.application_id


async def test_gateway_speaks_one_zlib_stream(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    inflate = zlib.decompressobj()
    url = f"{fake_discord.gateway_url}?v=10&encoding=json&compress=zlib-stream"
    async with http.ws_connect(url) as ws:
        hello = await ws.receive_bytes(timeout=60)
        assert hello.endswith(b"\x00\x00\xff\xff")
        assert json.loads(inflate.decompress(hello))["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": fake_discord.token, "intents": 0}})
        events = []
        for _ in range(2):
            frame = json.loads(inflate.decompress(await ws.receive_bytes(timeout=60)))
            events.append((frame["t"], frame["s"]))
        assert events == [("READY", 1), ("GUILD_CREATE", 2)]
        await fake_discord.wait_until_ready(1)


async def test_guild_commands_sync_apart_from_global_ones(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    app, guild = fake_discord.application_id, fake_discord.guild_id
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    command = {"name": "dev", "description": "A guild command", "type": 1, "options": []}
    url = f"{fake_discord.api_base}/applications/{app}/guilds/{guild}/commands"
    async with http.put(url, json=[command], headers=headers) as response:
        assert response.status == 200
        [stored] = await response.json()
    assert (stored["name"], stored["guild_id"]) == ("dev", guild)
    assert fake_discord.command("dev") == (stored, guild)
    bad = {**command, "name": "Dev Command"}
    async with http.put(url, json=[bad], headers=headers) as response:
        assert (response.status, (await response.json())["code"]) == (400, 50035)
    assert fake_discord.sync_requests == [guild]
    assert fake_discord.commands.get(None) is None


def _modal(title: str = "/game setup", rows: int = 1, longest: int = 4000) -> dict[str, Any]:
    row = {
        "type": 1,
        "components": [
            {"type": 4, "custom_id": "t", "style": 2, "label": "Text", "max_length": longest}
        ],
    }
    return {"type": 9, "data": {"custom_id": "m", "title": title, "components": [row] * rows}}


async def test_a_modal_is_refused_as_discord_refuses_it(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    url = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    for wrong in (_modal(title="x" * 46), _modal(rows=6), _modal(longest=4001)):
        pending(fake_discord)
        status, data = await post(http, url, wrong)
        assert (status, data["code"]) == (400, 50035), wrong
    sent = pending(fake_discord)
    async with http.post(url, json=_modal()) as response:
        assert response.status == 200
    form = await sent.next_reply(1)
    assert form.type == 9
    # submitting it needs every required input (the real bot submits one: test_setup_bot.py)
    with pytest.raises(AssertionError, match="required"):
        await fake_discord.submit_modal(form, {})


def _embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


# fmt: off
MESSAGE_LIMITS: list[tuple[str, dict[str, Any]]] = [
    # /help in Discord before the fix: two embeds that fit alone, 6,544 characters together
    ("two embeds over 6000", {"embeds": [_embed(description="x" * 4090),
                                         _embed(description="y" * 2454)]}),
    ("author and footer count", {"embeds": [_embed(
        description="x" * 4096, footer={"text": "f" * 1800}, author={"name": "a" * 105})]}),
    ("eleven embeds", {"embeds": [_embed(description="x")] * 11}),
    ("title over 256", {"embeds": [_embed(title="t" * 257)]}),
    ("description over 4096", {"embeds": [_embed(description="d" * 4097)]}),
    ("26 fields", {"embeds": [_embed(fields=[{"name": "n", "value": "v"}] * 26)]}),
    ("field name over 256", {"embeds": [_embed(fields=[{"name": "n" * 257, "value": "v"}])]}),
    ("field value over 1024", {"embeds": [_embed(fields=[{"name": "n", "value": "v" * 1025}])]}),
    ("empty field value", {"embeds": [_embed(fields=[{"name": "n", "value": ""}])]}),
    ("footer over 2048", {"embeds": [_embed(footer={"text": "f" * 2049})]}),
    ("author name over 256", {"embeds": [_embed(author={"name": "a" * 257})]}),
    ("six action rows", {"content": "x", "components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": "c"}]}
    ] * 6}),
    ("six buttons in a row", {"content": "x", "components": [
        {"type": 1, "components": [
            {"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"} for i in range(6)]}]}),
    ("custom id over 100", {"content": "x", "components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": "c" * 101}]}
    ]}),
    ("label over 80", {"content": "x", "components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "b" * 81, "custom_id": "c"}]}
    ]}),
    ("select of 26 options", {"content": "x", "components": [
        {"type": 1, "components": [{"type": 3, "custom_id": "s", "options": [
            {"label": f"o{i}", "value": f"o{i}"} for i in range(26)]}]}]}),
]
# fmt: on


@pytest.mark.parametrize(("case", "body"), MESSAGE_LIMITS, ids=[c for c, _ in MESSAGE_LIMITS])
async def test_a_message_over_a_limit_is_refused_wherever_it_is_sent(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession, case: str, body: dict[str, Any]
) -> None:
    """Callbacks, follow-ups and edits all refuse it (Discord checks every message body)."""
    api, app = fake_discord.api_base, fake_discord.application_id
    pending(fake_discord)
    callback = f"{api}/interactions/111/tok-111/callback?with_response=1"
    status, data = await post(http, callback, {"type": 4, "data": body})
    assert (status, data["code"]) == (400, 50035), case
    status, _ = await post(http, callback, {"type": 4, "data": {"content": "fits"}})
    assert status == 200
    status, data = await post(http, f"{api}/webhooks/{app}/tok-111", body)
    assert (status, data["code"]) == (400, 50035), case
    async with http.patch(f"{api}/webhooks/{app}/tok-111/messages/@original", json=body) as answer:
        assert (answer.status, (await answer.json())["code"]) == (400, 50035), case


async def test_a_message_at_every_limit_is_taken(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    body = {
        "content": "c" * 2000,
        "embeds": [
            _embed(title="t" * 256, description="d" * 2000, author={"name": "a" * 256},
                   footer={"text": "f" * 400}, fields=[{"name": "n", "value": "v" * 1024}] * 3),
        ],  # 6,000 characters in all
        "components": [{"type": 1, "components": [
            {"type": 2, "style": 1, "label": "b" * 80, "custom_id": f"{i}" * 100}
            for i in range(5)]}] * 5,
    }  # fmt: skip
    pending(fake_discord)
    url = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    assert (await post(http, url, {"type": 4, "data": body}))[0] == 200


async def test_a_channel_message_and_its_edit_obey_the_same_limits(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    channel = fake_discord.channels["table-1"]["id"]
    url = f"{fake_discord.api_base}/channels/{channel}/messages"
    too_big = {"embeds": [_embed(description="x" * 4090), _embed(description="y" * 2454)]}
    async with http.post(url, json=too_big, headers=headers) as response:
        assert (response.status, (await response.json())["code"]) == (400, 50035)
    async with http.post(url, json={"content": "board"}, headers=headers) as response:
        message = await response.json()
    async with http.patch(f"{url}/{message['id']}", json=too_big, headers=headers) as response:
        assert (response.status, (await response.json())["code"]) == (400, 50035)


async def test_autocomplete_choices_over_100_characters_are_refused(
    fake_discord: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    url = f"{fake_discord.api_base}/interactions/111/tok-111/callback?with_response=1"
    for choice in ({"name": "n" * 101, "value": "v"}, {"name": "n", "value": "v" * 101}):
        pending(fake_discord)
        status, data = await post(http, url, {"type": 8, "data": {"choices": [choice]}})
        assert (status, data["code"]) == (400, 50035), choice
