"""Beacon games through the real service and SQLite: declare, wait for the round, resolve."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from pathlib import Path

import pytest

from bot.dice.beacon.chain import round_time
from bot.dice.beacon.games import DeclarationCancelled, DeclarationPending, DeclarationWaiting
from bot.dice.beacon.local import LocalRelay
from bot.dice.game_dice import derive_face
from bot.errors import BadCommand, NotAReferee
from bot.log.export import export_game
from bot.models import Reply
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.beacon.conftest import ALICE, BOB, HERE, beacon_config, start_beacon_game
from tests.bot.toysystem import SYSTEM, Shoot

SHOOT = Shoot(side="Axis", target=7)


def n(reply: Reply) -> int:
    """A logged reply's sequence number."""
    assert reply.seq is not None
    return reply.seq


async def entries(service: GameService) -> list[dict[str, object]]:
    row = await service.repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    return [e.data() for e in await service.repo.entries(row.id)]


async def test_an_action_is_declared_then_resolved_with_its_round(
    service: GameService, relay: LocalRelay
) -> None:
    await start_beacon_game(service)
    before = time.time()
    declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
    # the declaration names a round published after it was written; nothing rolled yet
    assert declared.awaiting_round is not None and declared.dice == ()
    r = declared.awaiting_round
    assert round_time(relay.info, r) >= before + 0.5
    assert any(name == "Declaration" and f"#{declared.seq}" in v for name, v in declared.fields)
    assert relay.requests == []  # not asked before its time
    resolved = await service.resolution(HERE, declared)
    assert time.time() >= round_time(relay.info, r)
    assert resolved.seq == n(declared) + 1 and len(resolved.dice) >= 2
    log = await entries(service)
    declared_entry, resolved_entry = log[-2], log[-1]
    assert declared_entry["kind"] == "declared" and declared_entry["round"] == r
    assert datetime.fromisoformat(str(declared_entry["at"])).timestamp() < round_time(relay.info, r)
    assert resolved_entry["kind"] == "resolved" and resolved_entry["declared"] == declared.seq
    beacon = resolved_entry["beacon"]
    assert isinstance(beacon, dict)
    assert beacon["round"] == r and beacon["randomness"] == relay.chain.beacon(r).randomness.hex()
    # every die is version 2 of the game's seed with the round's randomness
    row = await service.repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    for die in resolved.dice:
        assert die.face == derive_face(
            row.seed, game=row.public_id, players=row.players_mix, seq=die.seq, sides=die.sides,
            beacon=relay.chain.beacon(r).randomness,
        )  # fmt: skip
    assert row.next_die == resolved.dice[-1].seq + 1 and "pending" not in row.table


async def test_a_roll_is_declared_and_resolved_too(service: GameService) -> None:
    await start_beacon_game(service)
    declared = await service.handle(HERE, BOB, "roll-1", gc.RollDice(dice="2d6", reason="test"))
    assert declared.awaiting_round is not None
    resolved = await service.resolution(HERE, declared)
    assert len(resolved.dice) == 2
    total = sum(d.face for d in resolved.dice)
    assert ("Total", str(total)) in resolved.fields


async def test_actions_without_dice_are_logged_at_once(service: GameService) -> None:
    await start_beacon_game(service)
    reply = await service.handle(HERE, ALICE, "ammo", SYSTEM.parse_action(
        {"action": "toy.ammo", "side": "Axis", "level": 3}))  # fmt: skip
    assert reply.awaiting_round is None and reply.seq == 4
    assert (await entries(service))[-1]["kind"] == "action"


async def test_an_illegal_declaration_is_refused_and_logs_nothing(service: GameService) -> None:
    await start_beacon_game(service)
    await service.handle(HERE, ALICE, "ammo", SYSTEM.parse_action(
        {"action": "toy.ammo", "side": "Axis", "level": 0}))  # fmt: skip
    head = len(await entries(service))
    with pytest.raises(Exception, match=r"ammo|ammunition"):
        await service.handle(HERE, ALICE, "shoot-x", SHOOT)
    assert len(await entries(service)) == head


async def test_later_declarations_wait_behind_a_pending_one(service: GameService) -> None:
    await start_beacon_game(service)
    first = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
    # bob's roll arrives while alice's shot waits for its round: it is taken after it resolves
    second = await service.handle(HERE, BOB, "roll-2", gc.RollDice(dice="DR"))
    assert second.seq == n(first) + 2
    resolved_first = await service.resolution(HERE, first)
    resolved_second = await service.resolution(HERE, second)
    assert resolved_first.seq == n(first) + 1
    assert resolved_second.dice[0].seq == resolved_first.dice[-1].seq + 1
    assert second.awaiting_round is not None and first.awaiting_round is not None
    assert second.awaiting_round > first.awaiting_round


async def test_relay_down_leaves_it_pending_then_it_resolves_with_the_same_round(
    db: Path, relay: LocalRelay
) -> None:
    repo = await open_repository(db)
    service = GameService(
        repo, {"toy": SYSTEM}, beacon=beacon_config(relay, patience=0.5, retry_max=0.3)
    )
    try:
        await start_beacon_game(service)
        relay.down = True
        declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
        with pytest.raises(DeclarationPending, match="stays pending") as caught:
            await service.resolution(HERE, declared)
        assert caught.value.user_message.count(". ") == 0  # one sentence
        # nothing else happens in the game meanwhile (bounded wait, then one sentence)
        with pytest.raises(DeclarationWaiting, match=f"Entry {declared.seq} is still waiting"):
            await service.handle(HERE, BOB, "roll-2", gc.RollDice(dice="dr"))
        late: list[int | None] = []

        async def on_late(place: object, reply: object) -> None:
            late.append(getattr(reply, "seq", None))

        assert service.resolver is not None
        service.resolver.on_late = on_late
        relay.down = False
        for _ in range(600):  # a minute at most (a second or two on a quiet machine)
            if late:
                break
            await asyncio.sleep(0.1)
        assert late == [n(declared) + 1]
        log = await entries(service)
        assert [e["kind"] for e in log[-2:]] == ["declared", "resolved"]
        beacon = log[-1]["beacon"]
        assert isinstance(beacon, dict) and beacon["round"] == declared.awaiting_round
        assert sum(1 for e in log if e["kind"] == "resolved") == 1
    finally:
        await service.close_beacon()
        await repo.close()


async def test_a_wrong_signature_is_never_used(db: Path, relay: LocalRelay) -> None:
    repo = await open_repository(db)
    service = GameService(
        repo, {"toy": SYSTEM}, beacon=beacon_config(relay, patience=0.3, retry_max=0.5)
    )
    try:
        await start_beacon_game(service)
        relay.wrong_signature = True
        declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
        with pytest.raises(DeclarationPending):
            await service.resolution(HERE, declared)
        assert [e["kind"] for e in (await entries(service))[-1:]] == ["declared"]
        relay.wrong_signature = False
        resolved = None
        for _ in range(600):  # a minute at most (a second or two on a quiet machine)
            log = await entries(service)
            if log[-1]["kind"] == "resolved":
                resolved = log[-1]
                break
            await asyncio.sleep(0.1)
        assert resolved is not None
        assert resolved["beacon"] == relay.chain.beacon(declared.awaiting_round or 0).to_json()
    finally:
        await service.close_beacon()
        await repo.close()


async def test_a_referee_cancels_a_pending_declaration(db: Path, relay: LocalRelay) -> None:
    repo = await open_repository(db)
    service = GameService(repo, {"toy": SYSTEM}, beacon=beacon_config(relay, patience=0.2))
    try:
        await start_beacon_game(service)
        relay.down = True
        declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
        with pytest.raises(NotAReferee):
            await service.handle(HERE, BOB, "cancel-bob", gc.GameCancel(reason="no"))
        waiting = asyncio.ensure_future(service.resolution(HERE, declared))
        cancelled = await service.handle(HERE, ALICE, "cancel", gc.GameCancel(reason="relay gone"))
        assert cancelled.title.startswith(f"Entry {declared.seq} is cancelled")
        with pytest.raises((DeclarationCancelled, DeclarationPending)):
            await waiting
        relay.down = False
        await asyncio.sleep(1.5)
        log = await entries(service)
        assert [e["kind"] for e in log[-2:]] == ["declared", "game.cancel"]
        assert log[-1]["entry"] == declared.seq and log[-1]["dice"] == []
        # the game goes on: the next declaration resolves normally
        again = await service.handle(HERE, ALICE, "shoot-2", SHOOT)
        assert (await service.resolution(HERE, again)).seq == n(again) + 1
        with pytest.raises(Exception, match="No declaration"):
            await service.handle(HERE, ALICE, "cancel-2", gc.GameCancel(reason="late"))
    finally:
        await service.close_beacon()
        await repo.close()


async def test_a_restart_resumes_pending_declarations(db: Path, relay: LocalRelay) -> None:
    repo = await open_repository(db)
    service = GameService(repo, {"toy": SYSTEM}, beacon=beacon_config(relay, patience=0.2))
    relay.down = True
    await start_beacon_game(service)
    declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
    await service.close_beacon()
    await repo.close()
    relay.down = False
    repo = await open_repository(db)
    service = GameService(repo, {"toy": SYSTEM}, beacon=beacon_config(relay))
    try:
        late: list[object] = []

        async def on_late(place: object, reply: object) -> None:
            late.append(reply)

        assert service.resolver is not None
        service.resolver.on_late = on_late
        assert await service.resume_beacon() == 1
        for _ in range(600):  # a minute at most (a second or two on a quiet machine)
            if late:
                break
            await asyncio.sleep(0.1)
        assert len(late) == 1
        log = await entries(service)
        assert [e["kind"] for e in log[-2:]] == ["declared", "resolved"]
        assert log[-1]["declared"] == declared.seq
        # a redelivered declaration is answered from the log and rolls nothing again
        again = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
        assert again.replayed and again.seq == declared.seq
        assert len(await entries(service)) == len(log)
    finally:
        await service.close_beacon()
        await repo.close()


async def test_beacon_dice_need_relays_and_refuse_scripted_dice(
    db: Path, relay: LocalRelay
) -> None:
    repo = await open_repository(db)
    try:
        plain = GameService(repo, {"toy": SYSTEM})
        with pytest.raises(Exception, match="no beacon relays"):
            await plain.handle(HERE, ALICE, "n1", gc.GameNew(system="toy", dice="beacon"))
        from bot.dice.game_dice import FaceScript

        scripted = GameService(
            repo, {"toy": SYSTEM}, script=FaceScript([1, 2]), beacon=beacon_config(relay)
        )
        with pytest.raises(BadCommand, match="Scripted dice"):
            await scripted.handle(HERE, ALICE, "n2", gc.GameNew(system="toy", dice="beacon"))
        assert await repo.active_game(HERE.guild_id, HERE.channel_id) is None
    finally:
        await repo.close()


async def test_the_export_names_the_chain_and_every_round(service: GameService) -> None:
    await start_beacon_game(service)
    declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
    await service.resolution(HERE, declared)
    row = await service.repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    text = await export_game(service.repo, row)
    assert '"dice_mode":"beacon"' in text.splitlines()[1]
    assert '"kind":"resolved"' in text and "docs/DICE.md version 2" in text.splitlines()[0]


async def test_a_relay_serving_rounds_early_changes_nothing(
    service: GameService, relay: LocalRelay
) -> None:
    """A relay that would serve future rounds is not asked before the round's time: the
    resolution comes after R is due, with R's own signature."""
    relay.early = True
    await start_beacon_game(service)
    declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
    r = declared.awaiting_round
    assert r is not None
    resolved = await service.resolution(HERE, declared)
    log = await entries(service)
    at = datetime.fromisoformat(str(log[-1]["at"])).timestamp()
    assert at >= round_time(relay.info, r)
    assert all(asked >= r for asked in relay.requests if asked)
    assert log[-1]["beacon"] == relay.chain.beacon(r).to_json()
    assert n(resolved) == n(declared) + 1


async def test_a_slow_relay_is_passed_over_for_the_next(db: Path, relay: LocalRelay) -> None:
    from bot.dice.beacon.local import LocalRelay as Relay

    backup = Relay(relay.chain)
    await backup.start()
    repo = await open_repository(db)
    config = beacon_config(relay, timeout=2.0)
    config.relays = (relay.url, backup.url)
    service = GameService(repo, {"toy": SYSTEM}, beacon=config)
    try:
        relay.delay = 10.0  # far beyond the 2 s timeout
        await start_beacon_game(service)
        declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
        assert declared.awaiting_round is not None
        resolved = await service.resolution(HERE, declared)
        assert n(resolved) == n(declared) + 1
        # the slow relay was not waited for: the round came 2 s after its time, plus the backup's
        # answer and the write (seconds under load), well before the slow relay's 10 s
        assert time.time() - round_time(relay.info, declared.awaiting_round) < 8.0
        assert backup.requests == [declared.awaiting_round]
    finally:
        await service.close_beacon()
        await repo.close()
        await backup.stop()


async def test_a_resolved_action_can_be_voided_and_the_export_still_verifies(
    service: GameService,
) -> None:
    from bot.log.verify import verify_lines

    await start_beacon_game(service)
    await service.handle(HERE, ALICE, "ammo", SYSTEM.parse_action(
        {"action": "toy.ammo", "side": "Allied", "level": 3}))  # fmt: skip
    declared = await service.handle(HERE, ALICE, "shoot-1", SHOOT)
    resolved = await service.resolution(HERE, declared)
    admin = ALICE.model_copy(update={"user_id": 99, "name": "umpire", "is_admin": True})
    void = await service.handle(HERE, admin, "void", gc.GameVoid(entry=n(resolved), reason="oops"))
    assert void.title.startswith(f"Entry {n(resolved)} is void")
    row = await service.repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    text = await export_game(service.repo, row)
    report = verify_lines(text.splitlines(), {"toy": SYSTEM})
    assert report.ok, report.message


async def test_a_batch_of_category_rolls_resolves_like_a_server_roll(service: GameService) -> None:
    from bot.log.verify import verify_lines

    await start_beacon_game(service)
    declared = await service.handle(
        HERE, BOB, "batch", gc.RollDice(dice="DR", count=3, category="MC", reason="squads")
    )
    resolved = await service.resolution(HERE, declared)
    assert len(resolved.dice) == 6
    entry = (await entries(service))[-1]
    assert entry["category"] == "MC" and isinstance(entry["totals"], list)
    assert len(entry["totals"]) == 3
    row = await service.repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    report = verify_lines((await export_game(service.repo, row)).splitlines(), {"toy": SYSTEM})
    assert report.ok, report.message
