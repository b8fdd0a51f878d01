"""/game setup and /game forces on the real bot against the fake Discord: a scenario attached as
a file (downloaded by the bot from the attachment's URL), refusals listing every line, and the
forces written back as a file that sets up the same forces in another channel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.models import MAX_FILE_BYTES
from tests.e2e.conftest import BotProcess, answer, running_bot
from tests.fake_discord import FakeDiscord, UploadedFile

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TIMEOUT = 30.0
CHANNELS = ("setup-1", "setup-2", "setup-3", "setup-4", "setup-5")
SCENARIO = Path(__file__).resolve().parents[2] / "docs" / "scenarios" / "asl.txt"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with running_bot(tmp_path_factory.mktemp("setup"), CHANNELS) as running:
        yield running


async def new_game(discord: FakeDiscord, channel: str) -> None:
    await answer(discord, ["game", "new"], {"system": "asl"}, user="ref", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Axis"}, channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Allied"}, user="bob", channel=channel)


async def test_an_attached_scenario_is_set_up_and_written_back(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await new_game(discord, "setup-1")
    scenario = UploadedFile("asl.txt", SCENARIO.read_bytes())
    # the scenario sets up both sides: alice's batch waits for bob
    proposal = await answer(discord, ["game", "setup"], {"file": scenario}, channel="setup-1")
    assert len(discord.downloads) == 1
    assert "proposes /game setup level side:Axis level:2" in proposal.text
    assert not proposal.ephemeral
    # the Allied player reads every command proposed before confirming, not the first three
    (proposed,) = proposal.files
    assert proposed.filename == "proposal-4-setup.txt"
    lines = proposed.data.decode("utf-8").splitlines()
    assert len(lines) == 12 and lines[-1].startswith("weapon add name:MMG side:Allied")
    assert "weapon add name:MMG side:Allied" in proposal.text
    status = await answer(discord, ["game", "status"], channel="setup-1")
    assert "alice: /game setup level side:Axis level:2; unit add" in status.text
    # a referee applies the same file at once: one entry, summarised per side
    done = await answer(
        discord, ["game", "setup"], {"file": scenario}, user="ref", channel="setup-1"
    )
    assert not done.ephemeral, done.text
    assert "/game setup" in done.text
    assert "4 units, 3 weapons" in done.text and "3 units, 1 weapon" in done.text
    # the forces come back as a file, and set up the same forces in another game
    forces = await answer(discord, ["game", "forces"], channel="setup-1")
    assert forces.ephemeral
    (written,) = forces.files
    assert written.filename.endswith("-setup.txt")
    text = written.data.decode("utf-8")
    assert 'unit add name:"4-6-7 A" side:Axis kind:squad quality:4-6-7' in text
    await new_game(discord, "setup-2")
    again = await answer(
        discord,
        ["game", "setup"],
        {"file": UploadedFile("forces.txt", written.data)},
        user="ref",
        channel="setup-2",
    )
    assert "4 units, 3 weapons" in again.text
    copy = await answer(discord, ["game", "forces"], channel="setup-2")
    assert copy.files[0].data.decode("utf-8").splitlines()[1:] == text.splitlines()[1:]


async def test_a_wrong_scenario_is_refused_whole_and_only_to_its_sender(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await new_game(discord, "setup-3")
    bad = b"unit add name:A side:Axis kind:squad\n" * 2 + b"roll dice:DR\n"
    refused = await answer(
        discord, ["game", "setup"], {"file": UploadedFile("bad.txt", bad)}, channel="setup-3"
    )
    assert refused.ephemeral
    lines = refused.text.splitlines()  # one error a line, at the file's own lines
    assert lines[0].startswith("Nothing was set up")
    assert lines[1] == "- bad.txt line 2: 'A' already exists; use update:true to change it."
    assert lines[2].startswith("- bad.txt line 3: ") and len(lines) == 3
    # not UTF-8, too large: refused before anything is read of it
    latin = await answer(
        discord,
        ["game", "setup"],
        {"file": UploadedFile("l.txt", "Bär".encode("latin-1"))},
        channel="setup-3",
    )
    assert latin.ephemeral and "not UTF-8" in latin.text
    before = len(discord.downloads)
    large = await answer(
        discord,
        ["game", "setup"],
        {"file": UploadedFile("big.txt", b"#" * (MAX_FILE_BYTES + 1))},
        channel="setup-3",
    )
    assert large.ephemeral and "at most 65536" in large.text
    assert len(discord.downloads) == before
    # pasted text, commands separated by ";", works as the file does
    pasted = await answer(
        discord,
        ["game", "setup"],
        {
            "text": "unit add name:A side:Axis kind:squad; weapon add name:LMG side:Axis "
            "kind:sw_mg owner:A"
        },
        channel="setup-3",
    )
    assert not pasted.ephemeral and "1 unit, 1 weapon" in pasted.text
    log = await answer(discord, ["game", "log"], channel="setup-3")
    assert "/game setup" in log.text


async def test_no_option_opens_a_form_whose_lines_are_the_scenario(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await new_game(discord, "setup-4")
    sent = await discord.slash(["game", "setup"], {}, user="ref", channel="setup-4")
    form = await sent.next_reply(TIMEOUT)
    assert form.type == 9 and form.data["title"] == "/game setup"
    lines = "level side:Axis level:1\nunit add name:A side:Axis kind:squad quality:4-6-7\n"
    submitted = await discord.submit_modal(
        form, {"Set-up commands, one a line": lines}, user="ref", channel="setup-4"
    )
    reply = await submitted.next_reply(TIMEOUT)
    if reply.type == 5:
        reply = await submitted.next_reply(TIMEOUT)
    assert not reply.ephemeral, reply.text
    assert "**Axis**: 1 unit" in reply.text and "**settings**: level" in reply.text
    # a wrong form is refused with its lines, only to its sender
    sent = await discord.slash(["game", "setup"], {}, channel="setup-4")
    form = await sent.next_reply(TIMEOUT)
    submitted = await discord.submit_modal(
        form,
        {"Set-up commands, one a line": "unit add name:B side:Axis\n# end"},
        channel="setup-4",
    )
    refused = await submitted.next_reply(TIMEOUT)
    assert refused.ephemeral and "line 1: Give the option kind." in refused.text


async def test_the_other_player_confirms_a_scenario_with_the_proposals_button(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await new_game(discord, "setup-5")
    scenario = UploadedFile("asl.txt", SCENARIO.read_bytes())
    proposal = await answer(discord, ["game", "setup"], {"file": scenario}, channel="setup-5")
    assert proposal.message is not None
    confirm, _ = proposal.custom_ids
    assert confirm.startswith("act:game.confirm:")
    sent = await discord.click(confirm, proposal.message["id"], user="bob", channel="setup-5")
    while True:  # the click updates the proposal's buttons, then posts the result
        done = await sent.next_reply(TIMEOUT)
        if done.kind == "followup" or (done.kind == "callback" and done.type == 4):
            break
    assert "/game setup" in done.text and "4 units, 3 weapons" in done.text, done.text
    forces = await answer(discord, ["game", "forces"], user="bob", channel="setup-5")
    assert forces.files[0].data.decode("utf-8").count("\nunit add ") == 7
