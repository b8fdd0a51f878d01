"""``/help``'s pages, directly: every line is kept, in order, and each message fits Discord's
limits per message (tests/fake_discord/limits.py)."""

from __future__ import annotations

from bot.render.embed import paged_embeds
from tests.fake_discord.limits import check_message


def test_long_help_is_split_into_messages_that_keep_every_line_in_order() -> None:
    lines = [f"`/asl command{i:03d}` — " + "x" * 90 for i in range(200)]
    messages = paged_embeds("Referee commands", lines)
    assert len(messages) == 4
    for embeds in messages:
        check_message({"embeds": [embed.to_dict() for embed in embeds]})
    assert [embeds[0].title for embeds in messages][:2] == [
        "Referee commands (1/4)",
        "Referee commands (2/4)",
    ]
    kept = [
        line
        for embeds in messages
        for embed in embeds
        for line in (embed.description or "").splitlines()
    ]
    assert kept == lines


def test_two_full_descriptions_go_to_two_messages() -> None:
    """Regression: /help sent 4,090 + 2,454 characters in one message (Discord refuses 6,000+)."""
    messages = paged_embeds("Referee commands", ["a" * 4090, "b" * 2454])
    assert [[len(e.description or "") for e in embeds] for embeds in messages] == [[4090], [2454]]


def test_short_help_is_one_embed() -> None:
    [[embed]] = paged_embeds("Referee commands", ["`/help` — List the bot's commands."])
    assert embed.title == "Referee commands"
    assert embed.description == "`/help` — List the bot's commands."
