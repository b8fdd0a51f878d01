"""The answer's lean POST (``bot.discord_ui.answer.post_callback``) meets what Discord says as
discord.py's webhook adapter does: a 429 is waited for and tried again, errors are raised with
Discord's code, a 5xx is tried again, an exhausted bucket holds the route. A real aiohttp server
on the loopback plays Discord, one scripted answer per request."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import orjson
import pytest
from aiohttp import web
from discord.http import Route
from discord.webhook.async_ import async_context

from bot.discord_ui.answer import post_callback

TOKEN = "aW50ZXJhY3Rpb246MTIz.token-with_safe.chars/and+others"


class Discord:
    """Answers each callback with the next scripted (status, JSON or None, headers)."""

    def __init__(self) -> None:
        self.script: list[tuple[int, Any, dict[str, str]]] = []
        self.requests: list[tuple[str, str, str, bytes, float]] = []

    async def callback(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.requests.append(
            (request.method, request.raw_path, request.headers["Content-Type"], body,
             time.monotonic())
        )  # fmt: skip
        status, data, headers = self.script.pop(0)
        if data is None:
            return web.Response(status=status, headers=headers)
        headers = {"Content-Type": "application/json", **headers}
        return web.Response(status=status, body=orjson.dumps(data), headers=headers)


@pytest.fixture
async def discord_api(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Discord]:
    fake = Discord()
    app = web.Application()
    app.router.add_post("/api/v10/interactions/{id}/{token}/callback", fake.callback)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setattr(Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    try:
        yield fake
    finally:
        await runner.cleanup()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
        yield session


BODY = orjson.dumps({"type": 4, "data": {"content": "Pong"}})


async def test_posts_the_body_to_the_callback_route_as_discord_py_does(
    discord_api: Discord, session: aiohttp.ClientSession
) -> None:
    discord_api.script.append((204, None, {}))
    await post_callback(session, 123, TOKEN, BODY)
    route = Route(
        "POST", "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=123, webhook_token=TOKEN,
    )  # fmt: skip
    method, path, content_type, body, _ = discord_api.requests[0]
    assert (method, content_type, body) == ("POST", "application/json", BODY)
    assert Route.BASE + path.removeprefix("/api/v10") == route.url


@pytest.mark.parametrize(
    ("status", "error"),
    [(400, discord.HTTPException), (403, discord.Forbidden), (404, discord.NotFound)],
)
async def test_a_refusal_is_raised_with_discords_code(
    discord_api: Discord, session: aiohttp.ClientSession, status: int, error: type[Exception]
) -> None:
    discord_api.script.append((status, {"code": 40060, "message": "already acknowledged"}, {}))
    with pytest.raises(error) as raised:
        await post_callback(session, 1, TOKEN, BODY)
    assert type(raised.value) is error
    assert (raised.value.status, raised.value.code) == (status, 40060)  # type: ignore[attr-defined]
    assert len(discord_api.requests) == 1


async def test_a_429_from_discord_is_waited_for_and_tried_again(
    discord_api: Discord, session: aiohttp.ClientSession
) -> None:
    limited = {"message": "You are being rate limited.", "retry_after": 0.3, "global": False}
    discord_api.script += [(429, limited, {"Via": "1.1 google"}), (204, None, {})]
    await post_callback(session, 1, TOKEN, BODY)
    first, second = discord_api.requests
    assert second[4] - first[4] >= 0.3
    assert second[3] == BODY


async def test_a_429_without_via_is_raised_at_once(
    discord_api: Discord, session: aiohttp.ClientSession
) -> None:
    """Cloudflare's ban (no ``Via`` header): trying again would only prolong it."""
    discord_api.script.append((429, {"message": "banned", "retry_after": 60}, {}))
    with pytest.raises(discord.HTTPException) as raised:
        await post_callback(session, 1, TOKEN, BODY)
    assert raised.value.status == 429
    assert len(discord_api.requests) == 1


async def test_a_server_error_is_tried_again(
    discord_api: Discord, session: aiohttp.ClientSession
) -> None:
    discord_api.script += [(502, None, {}), (204, None, {})]
    await post_callback(session, 1, TOKEN, BODY)
    assert len(discord_api.requests) == 2


async def test_an_exhausted_bucket_holds_the_callback_route(
    discord_api: Discord, session: aiohttp.ClientSession
) -> None:
    """``X-RateLimit-Remaining: 0`` on a success: the call returns, and the route's bucket is
    free, only after ``Reset-After`` (discord.py's deferred lock)."""
    exhausted = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "0.3"}
    discord_api.script.append((204, None, exhausted))
    began = time.monotonic()
    task = asyncio.create_task(post_callback(session, 7, TOKEN, BODY))
    await asyncio.sleep(0.15)
    lock = async_context.get()._locks.get((7, TOKEN))
    assert lock is not None and lock.locked() and not task.done()
    await task
    assert time.monotonic() - began >= 0.3
    assert not lock.locked()
