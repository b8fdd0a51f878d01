"""The BLS check of drand rounds: two real quicknet rounds, a local chain, the round arithmetic."""

from __future__ import annotations

import json
import time

import pytest

from bot.dice.beacon.chain import (
    QUICKNET,
    BadBeacon,
    ChainInfo,
    first_round_after,
    randomness_of,
    round_at,
    round_time,
    verify_round,
)
from bot.dice.beacon.local import LocalChain

REAL = {
    123: (
        "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b1"
        "3e0dfc92",
        "fb8f7bc29bf24db51871ec8c79f3a1e4bd0557bc0dfcee9ed1d924e69d1c60dc",
    ),
    657413: (
        "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85"
        "b89cd97b",
        "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587",
    ),
}


@pytest.mark.parametrize("r", sorted(REAL))
def test_real_quicknet_round_verifies(r: int) -> None:
    signature, randomness = REAL[r]
    beacon = verify_round(QUICKNET, r, bytes.fromhex(signature))
    assert beacon.round == r
    assert beacon.randomness.hex() == randomness
    assert randomness_of(bytes.fromhex(signature)).hex() == randomness


@pytest.mark.parametrize("r", sorted(REAL))
@pytest.mark.parametrize("other", [1, 122, 124, 657412, 657414, 2**40])
def test_real_signature_fails_for_any_other_round(r: int, other: int) -> None:
    signature, _ = REAL[r]
    with pytest.raises(BadBeacon, match=f"round {other}"):
        verify_round(QUICKNET, other, bytes.fromhex(signature))


@pytest.mark.parametrize("r", sorted(REAL))
def test_every_flipped_bit_of_a_real_signature_fails(r: int) -> None:
    signature = bytes.fromhex(REAL[r][0])
    for index in range(len(signature)):
        for bit in (0x01, 0x80):
            flipped = bytearray(signature)
            flipped[index] ^= bit
            with pytest.raises(BadBeacon):
                verify_round(QUICKNET, r, bytes(flipped))


def test_truncated_or_empty_signatures_fail() -> None:
    signature = bytes.fromhex(REAL[123][0])
    for bad in (b"", signature[:-1], signature + b"\x00", bytes(48)):
        with pytest.raises(BadBeacon):
            verify_round(QUICKNET, 123, bad)


def test_a_round_under_another_key_fails() -> None:
    local = LocalChain.new(period=3, genesis=QUICKNET.genesis)
    beacon = local.beacon(123)
    assert verify_round(local.info, 123, beacon.signature) == beacon
    with pytest.raises(BadBeacon):
        verify_round(QUICKNET, 123, beacon.signature)
    with pytest.raises(BadBeacon):
        verify_round(local.info, 123, bytes.fromhex(REAL[123][0]))


def test_local_chain_signs_every_round_verifiably() -> None:
    chain = LocalChain.new(period=1)
    info = chain.info
    for r in (1, 2, 3, 1000, 2**32):
        beacon = chain.beacon(r)
        assert verify_round(info, r, beacon.signature).randomness == beacon.randomness
        with pytest.raises(BadBeacon):
            verify_round(info, r + 1, beacon.signature)


def test_round_time_arithmetic_matches_quicknet() -> None:
    # round 657413's publication time: genesis + 657412 * 3
    assert round_time(QUICKNET, 657413) == 1692803367 + 657412 * 3
    assert round_at(QUICKNET, round_time(QUICKNET, 657413)) == 657413
    assert round_at(QUICKNET, round_time(QUICKNET, 657413) - 0.001) == 657412
    assert round_at(QUICKNET, QUICKNET.genesis - 1) == 0
    now = time.time()
    r = first_round_after(QUICKNET, now, margin=0.5)
    assert round_time(QUICKNET, r) > now + 0.5
    assert round_time(QUICKNET, r - 1) <= now + 0.5


def test_chain_info_round_trips_and_refuses_other_schemes() -> None:
    text = json.dumps({**QUICKNET.to_json(), "chain_hash": QUICKNET.chain_hash.upper()})
    assert ChainInfo.from_text(text) == QUICKNET
    with pytest.raises(ValueError, match="scheme"):
        ChainInfo.from_json({**QUICKNET.to_json(), "scheme": "pedersen-bls-chained"})
    with pytest.raises(ValueError, match="public key"):
        ChainInfo.from_json({**QUICKNET.to_json(), "public_key": "00" * 96})
