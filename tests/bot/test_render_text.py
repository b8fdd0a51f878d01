"""Plain-text rendering details."""

from __future__ import annotations

from bot.models import Reply
from bot.render.text import render_text


def test_a_multi_line_field_stays_indented_under_its_name() -> None:
    reply = Reply(
        command="/game status",
        title="Hill 621 (active)",
        fields=(("System", "ocs"), ("Table", "Axis dumps: A1 4 1/2 SP\nAllied dumps: none")),
    )
    lines = render_text(reply).splitlines()
    assert "  Table: Axis dumps: A1 4 1/2 SP" in lines
    assert "    Allied dumps: none" in lines
    assert "  System: ocs" in lines
