"""The real RefereeBot (``bot.discord_ui.client.run``) with generated toy commands, through
the fake Discord.

One bot serves the module's interaction tests; start-up, sync and shutdown tests start their own.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.commands.help import HOW_TO_ASK
from bot.discord_ui.appcommands import PREVIEW_HELP
from bot.discord_ui.tree import APOLOGY
from tests.e2e.conftest import BotLauncher, BotProcess
from tests.fake_discord import FakeDiscord

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TOYBOT = ["-m", "tests.e2e.toybot"]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def toy(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with FakeDiscord() as discord:
        launcher = BotLauncher(discord, tmp_path_factory.mktemp("toybot"))
        bot = await launcher.start_ready(TOYBOT)
        yield discord, bot
        await bot.stop()


def echo(content: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(content)
    return data


async def test_slash_command_reaches_the_handler_with_its_typed_options(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    options = {"name": "4-6-7", "side": "Axis", "kind": "squad", "replaced-by": "4-4-7"}
    sent = await discord.slash(["toy", "unit", "add"], {**options, "morale": 8})
    reply = await sent.next_reply()
    assert (reply.kind, reply.type, reply.ephemeral) == ("callback", 4, False)
    assert echo(reply.content) == {
        "path": ["toy", "unit", "add"],
        "options": {
            "name": "4-6-7",
            "side": "Axis",
            "kind": "squad",
            "replaced_by": "4-4-7",
            "morale": 8,
        },
        "preview": False,
    }


async def test_omitted_options_are_left_to_the_model_defaults(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.slash(["toy", "fire"], {"weapons": "MMG, HMG,"})
    reply = await sent.next_reply()
    assert echo(reply.content) == {
        "path": ["toy", "fire"],
        "options": {"weapons": ["MMG", "HMG"]},
        "preview": False,
    }


async def test_preview_is_passed_apart_from_the_options(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.slash(
        ["toy", "fire"], {"weapons": "LMG", "phase": "rph", "drm": -2, "preview": True}
    )
    reply = await sent.next_reply()
    assert reply.ephemeral
    assert echo(reply.content) == {
        "path": ["toy", "fire"],
        "options": {"weapons": ["LMG"], "phase": "rph", "drm": -2},
        "preview": True,
    }


async def test_autocomplete_offers_names_of_the_kind(toy: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = toy
    sent = await discord.autocomplete(
        ["toy", "unit", "add"], {"name": "x", "side": "al"}, focused="side"
    )
    reply = await sent.next_reply()
    assert reply.type == 8
    assert reply.choices == [{"name": "Allied", "value": "Allied"}]


async def test_autocomplete_in_a_list_completes_the_last_name(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.autocomplete(["toy", "fire"], {"weapons": "MMG, h"}, focused="weapons")
    reply = await sent.next_reply()
    assert reply.choices == [{"name": "MMG, HMG", "value": "MMG, HMG"}]


async def test_rules_error_is_one_ephemeral_sentence(toy: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = toy
    sent = await discord.slash(["toy", "refuse"], {"why": "rules"})
    reply = await sent.next_reply()
    assert reply.ephemeral
    assert reply.content == "A lone leader may not use Sustained Fire. (A9.3)"
    await sent.no_reply(0.3)


async def test_user_error_is_one_ephemeral_sentence(toy: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = toy
    sent = await discord.slash(["toy", "refuse"], {"why": "user"})
    reply = await sent.next_reply()
    assert reply.ephemeral
    assert reply.content == "You do not hold the Axis seat; ask a referee to seat you."


async def test_a_bug_is_logged_with_the_interaction_id_and_apologised_for(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, bot = toy
    sent = await discord.slash(["boom"])
    reply = await sent.next_reply()
    assert reply.ephemeral
    assert reply.content == APOLOGY.format(id=sent.id)
    log = bot.output()
    assert f"Unexpected error in interaction {sent.id} (/boom, user" in log
    assert "RuntimeError: a bug in a handler" in log


async def test_help_lists_every_group_at_a_glance(toy: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = toy
    sent = await discord.slash(["help"])
    reply = await sent.next_reply()
    assert reply.ephemeral
    lines = reply.embeds[0]["description"].splitlines()
    assert lines == [
        "`/boom` — A command whose handler has a bug.",
        "`/help` — List the bot's commands; group: a group's, command: one command's options.",
        "`/sync` — Owner only: send the command list to Discord again now.",
        "`/toy` — Toy game",
        "↳ fire · refuse · export · seat",
        "↳ unit: add · list",
        "`/whois` — Say who a member is and which roles they hold.",
        "",
        *HOW_TO_ASK,
    ]


async def test_help_of_one_group_and_its_autocomplete(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.autocomplete(["help"], {"group": "t"}, focused="group")
    assert (await sent.next_reply()).choices == [{"name": "toy", "value": "toy"}]
    sent = await discord.slash(["help"], {"group": "toy"})
    embed = (await sent.next_reply()).embeds[0]
    assert embed["title"] == "/toy commands"
    assert "/boom" not in embed["description"]
    assert "`/toy unit add name:… side:… kind:… [2 options]` — Add a unit to the game." in (
        embed["description"].splitlines()
    )
    sent = await discord.slash(["help"], {"group": "chess"})
    reply = await sent.next_reply()
    assert reply.ephemeral
    assert reply.content == "There is no command group called 'chess'. Try /help alone."


async def test_help_of_one_command_shows_its_options(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.autocomplete(["help"], {"command": "unit"}, focused="command")
    choices = [c["value"] for c in (await sent.next_reply()).choices]
    assert choices == ["toy unit add", "toy unit list"]
    sent = await discord.slash(["help"], {"command": "toy unit add"})
    embed = (await sent.next_reply()).embeds[0]
    assert embed["title"] == "/toy unit add"
    lines = embed["description"].splitlines()
    assert lines[0] == "Add a unit to the game."
    assert "**kind** · one of squad, crew, leader · required — What it is" in lines
    assert "**morale** · whole number 3–10 · default 7 — Its morale" in lines
    assert lines[-1].startswith("Example: `/toy unit add name:")
    sent = await discord.slash(["help"], {"command": "whois"})
    embed = (await sent.next_reply()).embeds[0]
    assert "**player** · user · required — A member of the server" in embed["description"]


async def test_sync_is_refused_to_anyone_but_the_owner(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    before = len(discord.sync_requests)
    sent = await discord.slash(["sync"], user="ref")
    reply = await sent.next_reply()
    assert (reply.ephemeral, reply.content) == (
        True,
        "Only the bot's owner can force a command sync.",
    )
    assert len(discord.sync_requests) == before


async def test_owner_forces_a_sync(toy: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = toy
    before = len(discord.sync_requests)
    sent = await discord.slash(["sync"], user="owner")
    deferred = await sent.next_reply()
    assert (deferred.kind, deferred.type, deferred.ephemeral) == ("callback", 5, True)
    followup = await sent.next_reply()
    assert (followup.kind, followup.content) == ("followup", "Synced 5 commands with Discord.")
    assert discord.sync_requests[before:] == [None]


async def test_synced_payload_carries_the_generated_options(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    command, scope = discord.command("toy")
    assert scope is None
    fire = next(o for o in command["options"] if o["name"] == "fire")
    assert fire["options"][-1] == {
        "type": 5,
        "name": "preview",
        "description": PREVIEW_HELP,
        "required": False,
    }
    sync, _ = discord.command("sync")
    assert sync["default_member_permissions"] == "8"  # administrators only, by default


# -- start-up, sync and shutdown: a bot each ------------------------------------------------------


@pytest.mark.asyncio(loop_scope="function")
async def test_restart_syncs_only_when_the_commands_changed(
    fake_discord: FakeDiscord, bots: BotLauncher, tmp_path: Path
) -> None:
    first = await bots.start_ready(TOYBOT)
    assert fake_discord.sync_requests == [None]
    assert await first.stop() == 0
    assert (tmp_path / "referee.db.sync.json").exists()

    second = await bots.start_ready(TOYBOT)
    assert fake_discord.sync_requests == [None]  # unchanged: no sync
    assert "Commands unchanged since the last sync" in second.output()
    assert await second.stop() == 0

    third = await bots.start_ready(TOYBOT, TOYBOT_EXTENSIONS="cogs.meta")
    assert fake_discord.sync_requests == [None, None]
    assert sorted(c["name"] for c in fake_discord.commands[None]) == ["help", "sync"]
    assert await third.stop() == 0


@pytest.mark.asyncio(loop_scope="function")
async def test_a_broken_extension_is_logged_and_the_rest_loads(
    fake_discord: FakeDiscord, bots: BotLauncher
) -> None:
    bot = await bots.start_ready(
        TOYBOT, TOYBOT_EXTENSIONS="tests.e2e.no_such_cog,cogs.meta,tests.e2e.toy_cog"
    )
    assert "Failed to load extension tests.e2e.no_such_cog" in bot.output()
    sent = await fake_discord.slash(["toy", "unit", "list"])
    assert echo((await sent.next_reply()).content)["path"] == ["toy", "unit", "list"]


@pytest.mark.asyncio(loop_scope="function")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_closes_gracefully_and_runs_the_close_hooks(
    fake_discord: FakeDiscord, bots: BotLauncher, signum: signal.Signals
) -> None:
    bot = await bots.start_ready(TOYBOT, REFEREE_LOG_LEVEL="DEBUG")
    assert await bot.stop(signum=signum) == 0
    log = bot.output()
    assert f"Received {signum.name}; closing" in log
    assert "toy close hook ran" in log
    assert "Traceback" not in log


async def test_button_click_reaches_the_view_of_the_message(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.slash(["toy", "unit", "list"])
    reply = await sent.next_reply()
    assert reply.custom_ids == ["toy:again", "toy:repair"]
    assert reply.message is not None
    click = await discord.click("toy:again", reply.message["id"], user="bob")
    update = await click.next_reply()
    assert (update.kind, update.type) == ("callback", 7)
    assert update.content == "again, asked by bob"
    assert update.custom_ids == []


async def test_a_deferred_answer_sends_its_file_as_a_follow_up(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.slash(["toy", "export"])
    deferred = await sent.next_reply()
    assert (deferred.type, deferred.ephemeral) == (5, False)
    followup = await sent.next_reply()
    assert (followup.kind, followup.content) == ("followup", "The game's log.")
    assert [(f.filename, f.data) for f in followup.files] == [
        ("toy.jsonl", b'{"seq": 1}\n{"seq": 2}\n')
    ]
    assert followup.message is not None
    assert deferred.message is not None
    assert followup.message["id"] == deferred.message["id"]  # it replaced "thinking…"
    assert followup.message["attachments"][0]["filename"] == "toy.jsonl"
    assert followup.message["flags"] == 0


async def test_interactions_come_from_channels_and_threads(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    for channel, where in [
        ("table-1", "TextChannel table-1"),
        ("game-thread", "Thread game-thread"),
    ]:
        sent = await discord.slash(["toy", "unit", "list"], channel=channel)
        assert echo((await sent.next_reply()).content)["where"] == where


async def test_user_options_resolve_to_members_of_the_guild(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.slash(["whois"], {"player": "ref"}, user="bob")
    reply = await sent.next_reply()
    ref = discord.people["ref"].id
    assert reply.content == f"ref ({ref}) roles=['Referee'] asked by bob"


async def test_a_user_option_validates_into_the_model(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    command, _ = discord.command("toy")
    seat = next(o for o in command["options"] if o["name"] == "seat")
    assert [(o["name"], o["type"]) for o in seat["options"]] == [("side", 3), ("player", 6)]
    sent = await discord.slash(["toy", "seat"], {"side": "Axis", "player": "alice"}, user="ref")
    alice = discord.people["alice"].id
    assert (await sent.next_reply()).content == (
        f"Seat(action='toy.seat', side='Axis', player=Player(id={alice}, name='alice'))"
        " asked by ref"
    )
    sent = await discord.slash(["toy", "seat"], {"side": "Allied"}, user="bob")
    assert (await sent.next_reply()).content == (
        "Seat(action='toy.seat', side='Allied', player=None) asked by bob"
    )


async def test_errors_behind_buttons_are_answered_like_commands(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, bot = toy
    sent = await discord.slash(["toy", "unit", "list"])
    message = (await sent.next_reply()).message
    assert message is not None
    refused = await discord.click("toy:repair", message["id"], user="bob")
    reply = await refused.next_reply()
    assert (reply.ephemeral, reply.content) == (
        True,
        "Only the Axis player may repair this weapon.",
    )
    broken = await discord.click("toy:repair", message["id"], user="alice")
    reply = await broken.next_reply()
    assert (reply.ephemeral, reply.content) == (True, APOLOGY.format(id=broken.id))
    assert f"Unexpected error in interaction {broken.id} (toy:repair, user" in bot.output()


async def test_redelivered_interaction_cannot_be_answered_twice(
    toy: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = toy
    sent = await discord.slash(["toy", "unit", "list"])
    await sent.next_reply()
    await discord.redeliver(sent)
    await sent.no_reply(1.0)
    callback = f"POST /interactions/{sent.id}/{sent.token}/callback"
    assert (callback, 40060) in discord.refusals  # already acknowledged


@pytest.mark.asyncio(loop_scope="function")
async def test_a_refused_token_exits_with_status_1_and_says_so(
    fake_discord: FakeDiscord, bots: BotLauncher
) -> None:
    bot = await bots.start(TOYBOT, DISCORD_TOKEN="not-the-token")
    assert await asyncio.wait_for(bot.process.wait(), 60) == 1
    assert "Discord refused the token in DISCORD_TOKEN" in bot.output()
    assert fake_discord.identify is None


@pytest.mark.asyncio(loop_scope="function")
async def test_action_buttons_run_their_command_even_after_a_restart(
    fake_discord: FakeDiscord, bots: BotLauncher
) -> None:
    first = await bots.start_ready(TOYBOT)
    sent = await fake_discord.slash(
        ["toy", "unit", "add"], {"name": "with-button", "side": "Allied", "kind": "crew"}
    )
    reply = await sent.next_reply()
    custom_id, refuse_id = reply.custom_ids
    assert custom_id == 'act:toy.unit.add:{"kind":"squad","name":"4-6-7","side":"Axis"}'
    assert refuse_id == 'act:toy.refuse:{"why":"rules"}'
    assert reply.message is not None
    assert await first.stop() == 0

    await bots.start_ready(TOYBOT)
    click = await fake_discord.click(custom_id, reply.message["id"], user="bob")
    answer = await click.next_reply()
    assert (answer.kind, answer.type) == ("callback", 4)
    assert echo(answer.content) == {
        "path": ["toy", "unit", "add"],
        "options": {"name": "4-6-7", "side": "Axis", "kind": "squad"},
        "preview": False,
    }

    refused = await fake_discord.click(refuse_id, reply.message["id"], user="bob")
    answer = await refused.next_reply()
    assert (answer.ephemeral, answer.content) == (
        True,
        "A lone leader may not use Sustained Fire. (A9.3)",
    )
