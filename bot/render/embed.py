"""A Reply as a Discord embed people read at a glance.

The dice come first, ASL-style (the colored die first, then the Original and the Final DR), then
each weapon's or unit's fate (the facts), then the rules applied, step by step. The footer holds
the sequence number of every die and the game's dice commitment, so anyone can check the roll
against the export. The colour is the acting side's, the same for that side in every game.

Discord refuses embeds beyond its limits (a field's value 1024 characters, the description 4096,
25 fields, 6000 characters in all); :func:`render_embed` cuts long text at a line and says so.

>>> from bot.models import DieView, Reply
>>> from rules_core.dice import Roll
>>> from rules_core.outcome import Step
>>> ift = Roll(label="IFT DR", kind="DR", sides=6, faces=(5, 6))
>>> reply = Reply(command="/asl fire", title="/asl fire — Axis", side="Axis", seq=7,
...     actor="alice", rolls=(ift,), facts=(("MMG", "malfunctioned"),),
...     steps=(Step(rule="A9.7", text="Original DR 11 ≥ B2 — MMG malfunctioned", dice=(ift,)),),
...     dice=(DieView(seq=1, sides=6, face=5, label="IFT DR (colored)", epoch=1),
...           DieView(seq=2, sides=6, face=6, label="IFT DR (white)", epoch=1)),
...     commitment="ab" * 32, epoch=1)
>>> embed = render_embed(reply)
>>> embed.title
'#7 /asl fire — Axis'
>>> embed.description
'🎲 **IFT DR 11** — colored **5**, white **6** · Original DR 11 · Final DR 11'
>>> embed.fields[0].value
'**MMG**: malfunctioned'
>>> embed.footer.text.startswith("dice #1, #2 · epoch 1 commitment abab")
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import discord

from bot.models import FaceStats, Reply
from bot.render.text import dice_count, face_rows
from bot.stats.fairness import chi_square
from rules_core.dice import Roll
from rules_core.odds import format_probability
from rules_core.outcome import Step, total_modifier
from rules_core.words import counted

TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_NAME_LIMIT = 256
FIELD_LIMIT = 1024
FIELDS_LIMIT = 25
FOOTER_LIMIT = 2048
TOTAL_LIMIT = 6000

SIDE_COLOURS: dict[str, int] = {
    "axis": 0x5B6770,
    "german": 0x5B6770,
    "allied": 0x3E7B3A,
    "american": 0x3E7B3A,
    "russian": 0xA33B2A,
    "soviet": 0xA33B2A,
    "british": 0xB59A5B,
    "union": 0x2B4C8C,
    "confederate": 0x8C8C8C,
}
"""Colours of the sides people expect a colour for (counter colours); others are hashed."""
PALETTE = (0xC0392B, 0x2980B9, 0x27AE60, 0x8E44AD, 0xD35400, 0x16A085, 0xB7950B, 0x7F8C8D)
NEUTRAL = 0x2C3E50
PREVIEW = 0xF1C40F
SCRIPTED_MARK = "[SCRIPTED DICE] "


def side_colour(side: str | None) -> discord.Colour:
    """The side's colour: the same side always gets the same colour.

    >>> side_colour("Axis") == side_colour("axis")
    True
    >>> side_colour("Red Army") == side_colour("Red Army")
    True
    """
    if not side:
        return discord.Colour(NEUTRAL)
    key = side.strip().lower()
    if key in SIDE_COLOURS:
        return discord.Colour(SIDE_COLOURS[key])
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return discord.Colour(PALETTE[digest[0] % len(PALETTE)])


def final_dr(roll: Roll, steps: Iterable[Step]) -> int:
    """The roll's Final DR: its Original DR plus the modifiers of the step that applied them.

    >>> from rules_core.outcome import Modifier
    >>> dr = Roll(label="IFT DR", kind="DR", sides=6, faces=(3, 4))
    >>> final_dr(dr, [Step(rule="A7", text="IFT", dice=(dr,),
    ...     modifiers=(Modifier(label="CX", value=1),))])
    8
    """
    for step in steps:
        if roll in step.dice and step.modifiers:
            return roll.total + total_modifier(step.modifiers)
    return roll.total


def roll_line(roll: Roll, steps: Iterable[Step] = ()) -> str:
    """One roll, ASL-style: a DR shows the colored die first, the Original and the Final DR."""
    if roll.kind == "DR":
        return (
            f"🎲 **{roll.label} {roll.total}** — colored **{roll.faces[0]}**, "
            f"white **{roll.faces[1]}** · Original DR {roll.total} · "
            f"Final DR {final_dr(roll, steps)}"
        )
    faces = f" ({', '.join(map(str, roll.faces))})" if len(roll.faces) > 1 else ""
    return f"🎲 **{roll.label} {roll.total}**{faces}"


def step_line(step: Step) -> str:
    """A step with its rule number first, then its modifiers."""
    mods = ", ".join(m.render() for m in step.modifiers)
    return f"`{step.rule}` {step.text}" + (f" [{mods}]" if mods else "")


def cut_lines(lines: list[str], limit: int) -> str:
    """``lines`` joined, cut at a whole line to fit ``limit`` with a note of what was left out.

    >>> cut_lines(["a" * 10, "b" * 10, "c" * 10], 30)
    'aaaaaaaaaa\\n… 2 more lines'
    """
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    for index, line in enumerate(lines):
        after = _more(len(lines) - index - 1)
        length = len("\n".join([*kept, line])) + (len(after) + 1 if after else 0)
        if length > limit:
            note = _more(len(lines) - index)
            if not kept:
                return cut(line, limit - len(note) - 1) + "\n" + note
            return "\n".join([*kept, note])
        kept.append(line)
    return "\n".join(kept)


def _more(count: int) -> str:
    return f"… {count} more line{'s' if count != 1 else ''}" if count else ""


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def stats_line(stats: FaceStats) -> str:
    """The fairness test of one die size, with its sample size."""
    counts = dict(enumerate(stats.counts, start=1))
    test = chi_square(counts)
    spread = " ".join(f"{label}:{count}" for label, count in face_rows(stats.counts))
    return f"{spread}\n{test.verdict()}"


def render_embed(reply: Reply) -> discord.Embed:
    """The embed of ``reply``, within Discord's limits."""
    head = f"#{reply.seq} " if reply.seq is not None and not reply.ephemeral else ""
    title = head + reply.title
    if reply.scripted:
        title = SCRIPTED_MARK + title
    if reply.replayed:
        title += " (already answered; nothing rolled again)"
    colour = discord.Colour(PREVIEW) if reply.preview else side_colour(reply.side)
    description = cut_lines([roll_line(roll, reply.steps) for roll in reply.rolls], 2000)
    if reply.command == "/stats" and not reply.stats:
        description = "No dice rolled yet."
    embed = discord.Embed(
        title=cut(title, TITLE_LIMIT), description=description or None, colour=colour
    )
    if reply.actor:
        embed.set_author(name=cut(reply.actor, FIELD_NAME_LIMIT))
    fields: list[tuple[str, str]] = []
    if reply.facts:
        fields.append(("Result", cut_lines([f"**{s}**: {r}" for s, r in reply.facts], FIELD_LIMIT)))
    if reply.odds:
        odds = [
            f"`{format_probability(line.probability):>18}` "
            + ("; ".join(f"{s}: {r}" for s, r in line.facts) or "(no effect)")
            for line in reply.odds
        ]
        fields.append(("Exact odds (nothing rolled)", cut_lines(odds, FIELD_LIMIT)))
    if reply.steps:
        fields.append(("Rules", cut_lines([step_line(step) for step in reply.steps], FIELD_LIMIT)))
    for name, value in reply.fields:
        fields.append((name, cut_lines(value.splitlines() or ["—"], FIELD_LIMIT)))
    for stats in reply.stats:
        fields.append((f"d{stats.sides}: {dice_count(sum(stats.counts))}", stats_line(stats)))
    if reply.file is not None:
        size = len(reply.file.content)
        uses = {
            "/game forces": "give it to `/game setup` to set up these forces again",
            "/game propose": "every command proposed: confirm only if you agree to all of them",
        }
        use = uses.get(reply.command, "`referee verify` it")
        fields.append(("File", f"{reply.file.filename} ({counted(size, 'byte')}) — {use}"))
    footer = footer_text(reply)
    budget = TOTAL_LIMIT - len(embed.title or "") - len(description) - len(footer)
    budget -= len(reply.actor or "")
    for index, (name, value) in enumerate(fields):
        name, value = cut(name, FIELD_NAME_LIMIT), value or "—"
        last_slot = index == FIELDS_LIMIT - 1 and len(fields) > FIELDS_LIMIT
        if last_slot or len(name) + len(value) > budget:
            left = len(fields) - index  # never dropped without saying so, nor where they are
            where = (
                f"entry #{reply.seq} in full: /game export"
                if reply.seq is not None and not reply.ephemeral
                else "see /game log"
            )
            embed.add_field(name="…", value=f"{counted(left, 'more part')} left out ({where})")
            break
        budget -= len(name) + len(value)
        embed.add_field(name=name, value=value, inline=False)
    if footer:
        embed.set_footer(text=footer)
    return embed


MAX_EMBEDS = 10


def paged_embeds(
    title: str, lines: list[str], colour: discord.Colour | None = None
) -> list[list[discord.Embed]]:
    """``lines`` as embeds, grouped into messages Discord takes: a description of at most 4,096
    characters each (cut only between lines), at most 10 embeds and 6,000 characters a message.
    The first embed of each message carries ``title`` (the later ones ``title (2/3)``).

    >>> messages = paged_embeds("Help", ["x" * 4000, "y" * 2500, "z" * 100])
    >>> [[len(e.description or "") for e in embeds] for embeds in messages]
    [[4000], [2601]]
    >>> [embeds[0].title for embeds in messages]
    ['Help (1/2)', 'Help (2/2)']
    """
    heading = len(title) + len(" (99/99)")
    messages: list[list[list[str]]] = [[[]]]  # messages of embeds of lines
    used = heading  # characters of the current message
    size = 0  # characters of the current embed's description
    for line in lines:
        line = cut(line, DESCRIPTION_LIMIT)
        if used + len(line) + 1 > TOTAL_LIMIT and messages[-1][-1]:
            messages.append([[]])
            used, size = heading, 0
        elif size + len(line) + 1 > DESCRIPTION_LIMIT and messages[-1][-1]:
            if len(messages[-1]) >= MAX_EMBEDS:
                messages.append([[]])
                used = heading
            else:
                messages[-1].append([])
            size = 0
        messages[-1][-1].append(line)
        size += len(line) + 1
        used += len(line) + 1
    found = []
    for number, pages in enumerate(messages, start=1):
        texts = ["\n".join(page) for page in pages]
        embeds = [discord.Embed(description=text or None, colour=colour) for text in texts]
        embeds[0].title = title if len(messages) == 1 else f"{title} ({number}/{len(messages)})"
        found.append(embeds)
    return found


def footer_text(reply: Reply) -> str:
    """Each die's sequence number, the seed epoch and the game's dice commitment."""
    parts = []
    if reply.anchor and not reply.ephemeral:
        parts.append(f"anchor {reply.anchor}")
    if reply.dice:
        parts.append("dice " + ", ".join(f"#{d.seq}" for d in reply.dice))
    if reply.commitment:
        epoch = f"epoch {reply.epoch} " if reply.epoch is not None else ""
        parts.append(f"{epoch}commitment {reply.commitment}")
    if reply.game_id:
        parts.append(f"game {reply.game_id}")
    return cut(" · ".join(parts), FOOTER_LIMIT)


__all__ = [
    "cut",
    "cut_lines",
    "final_dr",
    "footer_text",
    "paged_embeds",
    "render_embed",
    "roll_line",
    "side_colour",
    "stats_line",
    "step_line",
]
