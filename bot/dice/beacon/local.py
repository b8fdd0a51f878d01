"""A local drand-like chain and relay on 127.0.0.1, for tests and for trying beacon games offline.

The chain has a key made here (not the League of Entropy's), the same scheme and formulas as
quicknet, and any period (tests use 1 second). :class:`LocalRelay` serves its rounds over HTTP as
a drand relay does, each round only once its time has come; for tests it can be told to be down,
slow, to serve wrong signatures or to serve rounds early.

    python -m bot.dice.beacon.local --period 1 --chain-file chain.json

runs a relay until interrupted, after writing the chain's facts and the relay's URL to
``chain.json`` (``REFEREE_BEACON_CHAIN`` and ``REFEREE_BEACON_RELAYS`` of the bot).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from bot.dice.beacon.chain import (
    GROUP_ORDER,
    Beacon,
    ChainInfo,
    public_key_of,
    randomness_of,
    round_at,
    sign_round,
)


@dataclass(frozen=True)
class LocalChain:
    """A chain whose secret key is known here: it can sign any round."""

    secret: int
    period: int = 1
    genesis: int = field(default_factory=lambda: int(time.time()) - 1)

    @classmethod
    def new(cls, period: int = 1, genesis: int | None = None) -> LocalChain:
        """A chain with a fresh random key."""
        secret = 1 + secrets.randbelow(GROUP_ORDER - 1)
        if genesis is None:
            return cls(secret=secret, period=period)
        return cls(secret=secret, period=period, genesis=genesis)

    @property
    def info(self) -> ChainInfo:
        """The chain's public facts (its hash covers the key, period and genesis)."""
        key = public_key_of(self.secret)
        chain_hash = hashlib.sha256(
            key + self.period.to_bytes(8, "big") + self.genesis.to_bytes(8, "big")
        ).hexdigest()
        return ChainInfo(
            name="local", chain_hash=chain_hash, public_key=key.hex(), period=self.period,
            genesis=self.genesis,
        )  # fmt: skip

    def beacon(self, r: int) -> Beacon:
        """Round ``r``, signed."""
        signature = sign_round(self.secret, r)
        return Beacon(round=r, signature=signature, randomness=randomness_of(signature))


class LocalRelay:
    """An HTTP relay of a local chain on 127.0.0.1 (``GET /<chain hash>/public/<round>``)."""

    def __init__(self, chain: LocalChain, *, clock: Callable[[], float] = time.time) -> None:
        self.chain = chain
        self.info = chain.info
        self.clock = clock
        self.down = False
        """Answer every request with HTTP 503."""
        self.delay = 0.0
        """Seconds to wait before answering."""
        self.wrong_signature = False
        """Serve another round's signature."""
        self.early = False
        """Serve rounds before their time."""
        self.round_shift = 0
        """Answer round r with round r + shift (correctly signed, but not the round asked)."""
        self.requests: list[int] = []
        """The rounds asked for, in order (``latest`` as 0)."""
        self.url = ""
        self._runner: web.AppRunner | None = None

    def _app(self) -> web.Application:
        app = web.Application()
        base = f"/{self.info.chain_hash}"
        app.router.add_get(base + "/info", self._chain_info)
        app.router.add_get(base + "/public/latest", self._latest)
        app.router.add_get(base + "/public/{round}", self._round)
        return app

    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (``port`` 0: any free port); the relay's base URL."""
        self._runner = web.AppRunner(self._app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or ()
        bound = sockets[0].getsockname()[1] if sockets else port
        self.url = f"http://127.0.0.1:{bound}"
        return self.url

    async def stop(self) -> None:
        """Stop serving."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _chain_info(self, request: web.Request) -> web.Response:
        return web.json_response(self.info.to_json())

    async def _latest(self, request: web.Request) -> web.Response:
        self.requests.append(0)
        return await self._serve(round_at(self.info, self.clock()))

    async def _round(self, request: web.Request) -> web.Response:
        try:
            r = int(request.match_info["round"])
        except ValueError:
            return web.json_response({"error": "not a round"}, status=400)
        self.requests.append(r)
        return await self._serve(r)

    async def _serve(self, r: int) -> web.Response:
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.down:
            return web.json_response({"error": "down"}, status=503)
        if r < 1 or (r > round_at(self.info, self.clock()) and not self.early):
            return web.json_response({"error": "round not published yet"}, status=404)
        served = r + self.round_shift
        beacon = self.chain.beacon(served + 1 if self.wrong_signature else served)
        return web.json_response(
            {
                "round": served,
                "signature": beacon.signature.hex(),
                "randomness": beacon.randomness.hex(),
            }
        )


async def _serve_forever(period: int, port: int, chain_file: Path) -> None:
    relay = LocalRelay(LocalChain.new(period=period))
    url = await relay.start(port)
    data = {**relay.info.to_json(), "relay": url}
    chain_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"local beacon chain {relay.info.chain_hash} on {url}, a round every {period} s")
    try:
        await asyncio.Event().wait()
    finally:
        await relay.stop()


def main(argv: list[str] | None = None) -> int:
    """Run a local chain's relay until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m bot.dice.beacon.local", description=__doc__)
    parser.add_argument("--period", type=int, default=1, help="seconds between rounds (1-3)")
    parser.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (0: any)")
    parser.add_argument("--chain-file", type=Path, required=True, help="where to write the chain")
    args = parser.parse_args(argv)
    try:
        asyncio.run(_serve_forever(args.period, args.port, args.chain_file))
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["LocalChain", "LocalRelay", "main"]
