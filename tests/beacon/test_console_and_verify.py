"""A whole beacon game through a real `referee console` against a local chain served by a real
`python -m bot.dice.beacon.local` process; its export checked by `referee verify` and the stdlib
verifier, and tampered exports refused."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.dice.beacon.local import LocalChain
from bot.log import verify_dice

ROOT = Path(__file__).resolve().parents[2]
QUICKNET_HASH = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
PLUGIN = ("--plugin", "tests.bot.toysystem")
STARTS_WITHIN = 120
"""Seconds the local chain's process may take to write its chain file: about 1 s on a quiet
machine, and more than the 10 s once allowed while other test runs loaded both cores."""

BEACON_GAME = """\
/game new system:toy title:"Beacon test" dice:beacon
/game seat side:Axis
@bob /game seat side:Allied
/toy shoot side:Axis target:8
@bob /roll dice:2d6 reason:"Morale Check"
@bob /toy ammo side:Allied level:3
@bob /toy shoot side:Allied careful:true
/game end
@bob /game confirm entry:11
/game export
"""


@pytest.fixture
def chain_file(tmp_path: Path) -> Iterator[Path]:
    """A local chain's relay in its own process (a round every second); its chain file."""
    path = tmp_path / "chain.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.dice.beacon.local", "--period", "1", "--chain-file", str(path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + STARTS_WITHIN
        while not (path.exists() and path.read_text(encoding="utf-8").strip().endswith("}")):
            if process.poll() is not None or time.monotonic() > deadline:
                process.terminate()
                raise AssertionError(f"the local chain did not start: {process.communicate()}")
            time.sleep(0.05)
        yield path
    finally:
        process.terminate()
        process.wait(timeout=60)


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "DISCORD_"))}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**base, **(env or {})},
    )  # fmt: skip


def beacon_env(chain_file: Path) -> dict[str, str]:
    return {"REFEREE_BEACON_CHAIN": str(chain_file)}


def play(tmp_path: Path, chain_file: Path, script: str = BEACON_GAME) -> Path:
    game = tmp_path / "game.txt"
    game.write_text(script, encoding="utf-8")
    played = run(
        "-m", "bot", "console", str(game), "--db", str(tmp_path / "c.db"), "--as", "alice",
        "--out", str(tmp_path), *PLUGIN, env=beacon_env(chain_file),
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    (export,) = tmp_path.glob("game-*.jsonl")
    return export


def verify(export: Path) -> subprocess.CompletedProcess[str]:
    return run("-m", "bot", "verify", str(export), *PLUGIN)


def stdlib_verify(export: Path) -> subprocess.CompletedProcess[str]:
    return run("-I", str(ROOT / "bot" / "log" / "verify_dice.py"), str(export))


def entries(export: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = export.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def write_resealed(path: Path, header: dict[str, Any], log: list[dict[str, Any]]) -> Path:
    """Write an export whose hash chain is recomputed (a forger with the whole export)."""
    prev = "0" * 64
    lines = []
    for entry in log:
        entry = {k: v for k, v in entry.items() if k != "hash"}
        entry["prev"] = prev
        prev = hashlib.sha256(canonical(entry).encode("utf-8")).hexdigest()
        lines.append(canonical({**entry, "hash": prev}))
    header = {**header, "head": {"seq": len(log), "hash": prev}}
    path.write_text("\n".join([canonical(header), *lines]) + "\n", encoding="utf-8")
    return path


def test_a_console_beacon_game_resolves_every_roll_and_its_export_verifies(
    tmp_path: Path, chain_file: Path
) -> None:
    game = tmp_path / "game.txt"
    game.write_text(BEACON_GAME, encoding="utf-8")
    played = run(
        "-m", "bot", "console", str(game), "--db", str(tmp_path / "c.db"), "--as", "alice",
        "--out", str(tmp_path), *PLUGIN, env=beacon_env(chain_file),
    )  # fmt: skip
    out = played.stdout
    assert played.returncode == 0, out + played.stderr
    assert out.count("declared: waiting for beacon round") == 3
    assert out.count("(beacon round ") == 3
    header, log = entries(next(tmp_path.glob("game-*.jsonl")))
    kinds = [e["kind"] for e in log]
    assert kinds == [
        "game.new", "game.seat", "game.seat", "declared", "resolved", "declared", "resolved",
        "action", "declared", "resolved", "game.propose", "game.end",
    ]  # fmt: skip  # Alice plays: her end is a proposal Bob confirms
    assert header["dice"] == "docs/DICE.md version 2"
    export = next(tmp_path.glob("game-*.jsonl"))
    full = verify(export)
    assert full.returncode == 0, full.stdout + full.stderr
    assert "beacon signatures checked: 3" in full.stdout
    assert "not a known public chain" in full.stdout
    standalone = stdlib_verify(export)
    assert standalone.returncode == 0, standalone.stdout + standalone.stderr
    assert "Not checked: the BLS signatures of the 3 beacon rounds" in standalone.stdout
    dice = sum(len(e["dice"]) for e in log)
    assert f"dice checked: {dice}" in full.stdout and f"dice checked: {dice}" in standalone.stdout


def test_tampered_beacon_exports_are_refused(tmp_path: Path, chain_file: Path) -> None:
    export = play(tmp_path, chain_file)
    header, log = entries(export)
    resolved = next(e for e in log if e["kind"] == "resolved")
    index = log.index(resolved)

    def forged(name: str, change: Any) -> Path:
        copy = json.loads(json.dumps(log))
        change(copy[index])
        return write_resealed(tmp_path / f"{name}.jsonl", header, copy)

    # 1. another face: both verifiers recompute the die
    def face(entry: dict[str, Any]) -> None:
        die = entry["dice"][0]
        die["face"] = die["face"] % 6 + 1

    for verifier in (verify, stdlib_verify):
        result = verifier(forged("face", face))
        assert result.returncode == 1 and f"entry {resolved['seq']}" in result.stdout

    # 2. another round's signature and randomness, consistent with each other: the dice no
    # longer match, and the signature is not the declared round's. Another chain's randomness
    # gives the same faces by chance (1 in 6 for one d6), so the chain is drawn until they differ
    seed = bytes.fromhex(log[-1]["revealed_seed"])

    def faces(randomness: bytes) -> list[int]:
        return [
            verify_dice.die_face(seed, header["game"], bytes(32), d["seq"], d["sides"], randomness)
            for d in resolved["dice"]
        ]

    assert faces(bytes.fromhex(resolved["beacon"]["randomness"])) == [
        d["face"] for d in resolved["dice"]
    ]
    other = next(
        chain
        for chain in (LocalChain.new(period=1) for _ in range(100))
        if faces(chain.beacon(resolved["beacon"]["round"]).randomness)
        != [d["face"] for d in resolved["dice"]]
    )

    def signature(entry: dict[str, Any]) -> None:
        beacon = other.beacon(entry["beacon"]["round"])
        entry["beacon"]["signature"] = beacon.signature.hex()
        entry["beacon"]["randomness"] = beacon.randomness.hex()

    result = verify(forged("signature", signature))
    assert result.returncode == 1
    assert f"entry {resolved['seq']}: die #" in result.stdout

    # 3. a flipped byte of the signature, randomness left alone: SHA-256 no longer matches
    def flipped(entry: dict[str, Any]) -> None:
        sig = bytearray(bytes.fromhex(entry["beacon"]["signature"]))
        sig[5] ^= 1
        entry["beacon"]["signature"] = sig.hex()

    for verifier in (verify, stdlib_verify):
        result = verifier(forged("flipped", flipped))
        assert result.returncode == 1 and f"entry {resolved['seq']}" in result.stdout

    # 4. a resolution claiming a later round than the declared one
    def later(entry: dict[str, Any]) -> None:
        entry["beacon"]["round"] += 1

    result = stdlib_verify(forged("later", later))
    assert result.returncode == 1 and "not the declared" in result.stdout

    # 5. dice rolled in a beacon game without a declaration (a silent fallback to server dice)
    def undeclared(entries_: list[dict[str, Any]]) -> None:
        declared = entries_[index - 1]
        entries_[index - 1] = {**resolved, "kind": "action", "seq": declared["seq"]}
        del entries_[index - 1]["resolves"]

    copy = json.loads(json.dumps(log))
    undeclared(copy)
    del copy[index]
    for n, entry in enumerate(copy, start=1):
        entry["seq"] = n
    result = stdlib_verify(write_resealed(tmp_path / "undeclared.jsonl", header, copy))
    assert result.returncode == 1 and "without a beacon round" in result.stdout

    # 6. a game claiming to use quicknet with the local chain's key
    def quicknet(entry: dict[str, Any]) -> None:
        entry["beacon"] = {**entry["beacon"], "name": "quicknet", "chain_hash": QUICKNET_HASH}

    copy = json.loads(json.dumps(log))
    quicknet(copy[0])
    result = verify(write_resealed(tmp_path / "quicknet.jsonl", header, copy))
    assert result.returncode == 1 and "public chain quicknet" in result.stdout


def test_a_forged_round_of_an_unrevealed_seed_is_caught_only_by_the_signature_check(
    tmp_path: Path, chain_file: Path
) -> None:
    """While the seed is secret nobody can recompute the dice; the signature still shows that
    the round was not the chain's."""
    unended = BEACON_GAME.replace("/game end\n@bob /game confirm entry:11\n", "")
    export = play(tmp_path, chain_file, unended)
    header, log = entries(export)
    assert header["status"] == "active"
    index = next(i for i, e in enumerate(log) if e["kind"] == "resolved")
    beacon = LocalChain.new(period=1).beacon(log[index]["beacon"]["round"])
    log[index]["beacon"]["signature"] = beacon.signature.hex()
    log[index]["beacon"]["randomness"] = beacon.randomness.hex()
    forged = write_resealed(tmp_path / "forged.jsonl", header, log)
    standalone = stdlib_verify(forged)
    assert standalone.returncode == 0, standalone.stdout  # it cannot know: it says so
    assert "Not checked: the BLS signatures of the " in standalone.stdout
    full = verify(forged)
    assert full.returncode == 1
    assert f"entry {log[index]['seq']}: The signature of beacon round" in full.stdout
    assert verify(export).returncode == 0
