"""The relay client against local relays on 127.0.0.1: relays in turn, timeouts, bad rounds."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from bot.dice.beacon.chain import round_at, verify_round
from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.dice.beacon.relay import BeaconUnavailable, RelayClient


@pytest.fixture
async def relays() -> AsyncIterator[tuple[LocalRelay, LocalRelay]]:
    chain = LocalChain.new(period=1)
    first, second = LocalRelay(chain), LocalRelay(chain)
    await first.start()
    await second.start()
    yield first, second
    await first.stop()
    await second.stop()


async def test_fetches_and_verifies_a_published_round(
    relays: tuple[LocalRelay, LocalRelay],
) -> None:
    first, second = relays
    client = RelayClient(first.info, [first.url, second.url])
    r = round_at(first.info, time.time())
    beacon = await client.fetch(r)
    await client.close()
    assert verify_round(first.info, r, beacon.signature) == beacon
    assert first.requests == [r] and second.requests == []


@pytest.mark.parametrize("fault", ["down", "wrong_signature", "slow"])
async def test_a_failing_relay_is_skipped_for_the_next(
    relays: tuple[LocalRelay, LocalRelay], fault: str
) -> None:
    first, second = relays
    if fault == "slow":
        first.delay = 10.0
    else:
        setattr(first, fault, True)
    # each relay gets 2 s (the next one answers in milliseconds, more under load), and the slow
    # one is not waited for: the round comes well before the slow relay's 10 s
    client = RelayClient(first.info, [first.url, second.url], timeout=2.0)
    r = round_at(first.info, time.time())
    started = time.monotonic()
    beacon = await client.fetch(r)
    await client.close()
    assert beacon.round == r and beacon == first.chain.beacon(r)
    assert first.requests == [r] and second.requests == [r]
    assert time.monotonic() - started < 8.0


async def test_no_relay_answering_says_why(relays: tuple[LocalRelay, LocalRelay]) -> None:
    first, second = relays
    first.down = True
    second.wrong_signature = True
    client = RelayClient(first.info, [first.url, second.url, "http://127.0.0.1:9"])
    r = round_at(first.info, time.time())
    with pytest.raises(BeaconUnavailable) as caught:
        await client.fetch(r)
    await client.close()
    text = str(caught.value)
    assert "HTTP 503" in text and "does not verify" in text and "127.0.0.1:9" in text


async def test_a_round_is_not_asked_for_before_its_time(
    relays: tuple[LocalRelay, LocalRelay],
) -> None:
    first, _ = relays
    first.early = True  # it would serve a future round: the client must not even ask
    client = RelayClient(first.info, [first.url])
    future = round_at(first.info, time.time()) + 5
    with pytest.raises(BeaconUnavailable, match="not due"):
        await client.fetch(future)
    await client.close()
    assert first.requests == []


async def test_a_relay_answering_another_round_is_refused(
    relays: tuple[LocalRelay, LocalRelay],
) -> None:
    first, second = relays
    first.round_shift = -1  # a valid, signed round, but not the one asked for
    client = RelayClient(first.info, [first.url])
    r = round_at(first.info, time.time())
    with pytest.raises(BeaconUnavailable, match="another round"):
        await client.fetch(r)
    await client.close()
    both = RelayClient(first.info, [first.url, second.url])
    assert (await both.fetch(r)) == second.chain.beacon(r)
    await both.close()


async def test_a_relay_of_another_chain_gives_nothing(
    relays: tuple[LocalRelay, LocalRelay],
) -> None:
    first, _ = relays
    other = LocalRelay(LocalChain.new(period=1, genesis=first.info.genesis))
    other_url = await other.start()
    client = RelayClient(first.info, [other_url])
    with pytest.raises(BeaconUnavailable, match="HTTP 404"):
        await client.fetch(round_at(first.info, time.time()))
    await client.close()
    await other.stop()
