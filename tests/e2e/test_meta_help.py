"""``/help``'s pages, directly: every line is kept and no embed exceeds Discord's limits."""

from __future__ import annotations

from cogs.meta import DESCRIPTION_LIMIT, help_embeds


def test_long_help_is_split_into_embeds_that_keep_every_line_in_order() -> None:
    lines = [f"`/asl command{i:02d}` — " + "x" * 90 for i in range(100)]
    embeds = help_embeds(lines, "Referee commands")
    assert len(embeds) == 3
    assert embeds[0].title == "Referee commands"
    assert all(len(embed.description or "") <= DESCRIPTION_LIMIT for embed in embeds)
    kept = [line for embed in embeds for line in (embed.description or "").splitlines()]
    assert kept == lines


def test_short_help_is_one_embed() -> None:
    [embed] = help_embeds(["`/help` — List the bot's commands."], "Referee commands")
    assert embed.description == "`/help` — List the bot's commands."
