"""Fetching a beacon round over HTTP from drand relays, tried in turn, each with a timeout.

A relay serves ``GET <relay>/<chain hash>/public/<round>`` as JSON ``{"round", "randomness",
"signature"}``. Nothing a relay says is trusted: the round number must be the one asked for, the
signature must verify against the chain's public key (:func:`bot.dice.beacon.chain.verify_round`),
and the randomness is recomputed from the signature. A relay that is down, slow, early or wrong
is skipped for the next one; when none gives a valid round, :class:`BeaconUnavailable` says why.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import aiohttp

from bot.dice.beacon.chain import BadBeacon, Beacon, ChainInfo, round_time, verify_round

DEFAULT_RELAYS: tuple[str, ...] = (
    "https://api.drand.sh",
    "https://api2.drand.sh",
    "https://api3.drand.sh",
    "https://drand.cloudflare.com",
)
"""The drand project's public HTTP relays (the default of ``REFEREE_BEACON_RELAYS``)."""
DEFAULT_TIMEOUT = 2.0
"""Seconds one relay gets to answer one request."""


class BeaconUnavailable(Exception):
    """No relay gave a valid round (down, slow, not published yet, or a bad signature)."""


class RelayClient:
    """Fetches and verifies rounds of one chain from a list of relays, in the order given."""

    def __init__(
        self,
        chain: ChainInfo,
        relays: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not relays:
            raise ValueError("name at least one beacon relay")
        self.chain = chain
        self.relays = tuple(r.rstrip("/") for r in relays)
        self.timeout = timeout
        self.clock = clock
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        """Close the HTTP session."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout),
                headers={"User-Agent": "referee-bot beacon client"},
            )
        return self._session

    async def fetch(self, r: int) -> Beacon:
        """Round ``r``, verified, from the first relay that serves it validly.

        The round is not asked for before its publication time (a relay serving it earlier
        could only be serving a broken chain's rounds).

        :raises BeaconUnavailable: with each relay's reason, when none gave a valid round.
        """
        due = round_time(self.chain, r)
        if self.clock() < due:
            raise BeaconUnavailable(f"beacon round {r} is not due before {due}")
        reasons: list[str] = []
        for relay in self.relays:
            try:
                return await self._fetch_one(relay, r)
            except (BadBeacon, BeaconUnavailable) as exc:
                reasons.append(f"{relay}: {exc}")
            except (TimeoutError, aiohttp.ClientError, ValueError, KeyError) as exc:
                reasons.append(f"{relay}: {type(exc).__name__} {exc}".rstrip())
        raise BeaconUnavailable("; ".join(reasons))

    async def _fetch_one(self, relay: str, r: int) -> Beacon:
        url = f"{relay}/{self.chain.chain_hash}/public/{r}"
        async with self._client().get(url) as response:
            if response.status != 200:
                raise BeaconUnavailable(f"HTTP {response.status}")
            data = await response.json(content_type=None)
        if not isinstance(data, dict) or data.get("round") != r:
            raise BeaconUnavailable(f"answered another round than {r}")
        beacon = verify_round(self.chain, r, bytes.fromhex(str(data["signature"])))
        claimed = data.get("randomness")
        if claimed is not None and str(claimed).lower() != beacon.randomness.hex():
            raise BadBeacon(f"the randomness of round {r} is not SHA-256 of its signature")
        return beacon


__all__ = ["DEFAULT_RELAYS", "DEFAULT_TIMEOUT", "BeaconUnavailable", "RelayClient"]
