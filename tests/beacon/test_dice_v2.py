"""Dice version 2 (beacon dice): the documented vector, both implementations, the beacon matters."""

from __future__ import annotations

import hmac
import random
import re
from pathlib import Path

from bot.dice.beacon.chain import QUICKNET, verify_round
from bot.dice.game_dice import NO_PLAYERS, Deriver, GameDice, derive_face, message, mix_phrase
from bot.log import verify_dice

DOCS = Path(__file__).resolve().parents[2] / "docs" / "DICE.md"


def block(name: str) -> dict[str, str]:
    """The ``key: value`` lines between ``<!-- name -->`` and ``<!-- /name -->`` in DICE.md."""
    text = DOCS.read_text(encoding="utf-8")
    inner = text.split(f"<!-- {name} -->")[1].split(f"<!-- /{name} -->")[0]
    return dict(re.findall(r"^(\S[^:]*): (.+)$", inner, flags=re.M))


def test_the_beacon_vector_of_the_document_matches_both_implementations() -> None:
    v1, v2 = block("vector"), block("beacon vector")
    seed, game = bytes.fromhex(v1["seed"]), v1["game"]
    players = mix_phrase(NO_PLAYERS, v1["phrase"])
    # the round is a real quicknet round, and the beacon is its randomness
    beacon = verify_round(QUICKNET, int(v2["round"]), bytes.fromhex(v2["signature"]))
    assert beacon.randomness.hex() == v2["beacon"]
    text = message(game, players, 1, 6, 0, beacon.randomness)
    assert text.hex() == v2["message of die 1"]
    assert verify_dice.die_message(game, players, 1, 6, 0, beacon.randomness) == text
    digest = hmac.digest(seed, text, "sha256")
    assert digest.hex() == v2["HMAC of die 1"]
    assert int.from_bytes(digest[:8], "big") == int(v2["x of die 1"])
    faces = [
        derive_face(seed, game=game, players=players, seq=s, sides=6, beacon=beacon.randomness)
        for s in range(1, 11)
    ]
    assert ",".join(map(str, faces)) == v2["d6 faces 1-10"]
    assert faces == [
        verify_dice.die_face(seed, game, players, s, 6, beacon.randomness) for s in range(1, 11)
    ]
    # version 1's faces of the same inputs are another sequence
    assert v1["d6 faces 1-10"] != v2["d6 faces 1-10"]


def test_both_implementations_agree_on_random_beacons_including_rejections() -> None:
    rng = random.Random(15)
    for _ in range(300):
        seed, players, beacon = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
        game = rng.choice(["g", "é-game", "x" * 40])
        seq = rng.randrange(1, 10**9)
        sides = rng.choice([2, 6, 10, 20, 100, 3 * 2**62])
        face = derive_face(seed, game=game, players=players, seq=seq, sides=sides, beacon=beacon)
        assert 1 <= face <= sides
        assert Deriver(seed, game=game, players=players, beacon=beacon).face(seq, sides) == face
        assert verify_dice.die_face(seed, game, players, seq, sides, beacon) == face


def test_the_beacon_changes_the_dice_and_game_dice_use_it() -> None:
    seed = bytes(range(32))
    one, other = bytes(32), bytes(31) + b"\x01"
    faces_one = [
        derive_face(seed, game="g", players=NO_PLAYERS, seq=s, sides=1000, beacon=one)
        for s in range(1, 21)
    ]
    faces_other = [
        derive_face(seed, game="g", players=NO_PLAYERS, seq=s, sides=1000, beacon=other)
        for s in range(1, 21)
    ]
    assert faces_one != faces_other
    dice = GameDice(seed, game="g", players=NO_PLAYERS, next_seq=1, epoch=1, beacon=one)
    dice.DR("IFT DR")
    assert [d.face for d in dice.records] == [
        derive_face(seed, game="g", players=NO_PLAYERS, seq=s, sides=6, beacon=one) for s in (1, 2)
    ]
