"""Plain-text rendering of a Reply, for the console and logs.

Dice are shown ASL-style: the colored die first (``IFT DR 11 (5,6)``), then each step with its
rule citation, the facts, each die's game-wide sequence number, and the dice commitment.

>>> from bot.models import DieView, Reply
>>> from rules_core.dice import Roll
>>> reply = Reply(command="/roll", title="DR 7 (3,4)", seq=4, actor="alice",
...     rolls=(Roll(label="DR", kind="DR", sides=6, faces=(3, 4)),),
...     dice=(DieView(seq=1, sides=6, face=3, label="DR (colored)", epoch=1),
...           DieView(seq=2, sides=6, face=4, label="DR (white)", epoch=1)),
...     commitment="ab" * 32, epoch=1)
>>> print(render_text(reply))
#4 DR 7 (3,4) — alice
  DR 7 (3,4): colored 3, white 4 (Original DR 7)
  dice: #1 d6=3 (DR (colored)), #2 d6=4 (DR (white)) · epoch 1 commitment abababababab…
"""

from __future__ import annotations

from bot.models import Reply, short_hash
from rules_core.dice import Roll
from rules_core.odds import format_probability
from rules_core.words import counted


def render_roll(roll: Roll) -> str:
    """One roll: a DR shows colored then white and the Original DR.

    >>> render_roll(Roll(label="IFT DR", kind="DR", sides=6, faces=(5, 6)))
    'IFT DR 11 (5,6): colored 5, white 6 (Original DR 11)'
    >>> render_roll(Roll(label="Repair dr", kind="dr", sides=6, faces=(3,)))
    'Repair dr 3'
    """
    if roll.kind == "DR":
        return (
            f"{roll.render()}: colored {roll.faces[0]}, white {roll.faces[1]} "
            f"(Original DR {roll.total})"
        )
    return roll.render()


MAX_ROWS = 20
"""A die of more faces is shown in ten rows of equal ranges of faces (a d100: 1–10, 11–20…)."""


def dice_count(count: int) -> str:
    """``1 die``, ``2 dice``.

    >>> dice_count(1), dice_count(0), dice_count(12)
    ('1 die', '0 dice', '12 dice')
    """
    return f"{count} {'die' if count == 1 else 'dice'}"


def face_rows(counts: tuple[int, ...] | list[int]) -> list[tuple[str, int]]:
    """The rows of a histogram: one per face, or ten ranges of faces for a large die.

    >>> face_rows([1, 0, 2])
    [('1', 1), ('2', 0), ('3', 2)]
    >>> rows = face_rows([1] * 100)
    >>> len(rows), rows[0], rows[-1]
    (10, ('1–10', 10), ('91–100', 10))
    """
    if len(counts) <= MAX_ROWS:
        return [(str(face), count) for face, count in enumerate(counts, start=1)]
    width = -(-len(counts) // 10)
    rows = []
    for start in range(0, len(counts), width):
        end = min(start + width, len(counts))
        rows.append((f"{start + 1}–{end}", sum(counts[start:end])))
    return rows


def render_text(reply: Reply) -> str:
    """The whole reply as lines of text."""
    shows_entry = (
        reply.seq is not None
        and not reply.ephemeral
        and (reply.file is None or reply.file_in_fields)  # an export shows no entry of its own
    )
    head = f"#{reply.seq} " if shows_entry else ""
    title = f"{head}{reply.title}"
    if reply.actor:
        title += f" — {reply.actor}"
    if reply.scripted:
        title = "[SCRIPTED DICE] " + title
    if reply.replayed:
        title += " (already done: answered from the log, nothing rolled)"
    lines = [title]
    if reply.command != "/roll" or any(roll.kind == "DR" for roll in reply.rolls):
        lines += [f"  {render_roll(roll)}" for roll in reply.rolls]
    for step in reply.steps:
        mods = ", ".join(m.render() for m in step.modifiers)
        lines.append(f"  {step.render()}" + (f" [{mods}]" if mods else ""))
    if reply.facts:
        lines.append("  → " + "; ".join(f"{subject}: {result}" for subject, result in reply.facts))
    for line in reply.odds:
        facts = "; ".join(f"{s}: {r}" for s, r in line.facts) or "(no effect)"
        lines.append(f"  {format_probability(line.probability):>18}  {facts}")
    for name, value in reply.fields:
        first, *more = value.split("\n") or [""]
        lines.append(f"  {name}: {first}")
        lines.extend(f"    {line}" for line in more)  # a multi-line value stays under its name
    for stats in reply.stats:
        total = sum(stats.counts)
        lines.append(f"  d{stats.sides}: {dice_count(total)}")
        rows = face_rows(stats.counts)
        peak = max(count for _, count in rows) or 1
        width = max(len(label) for label, _ in rows)
        for label, count in rows:
            lines.append(f"    {label:>{width}} {'#' * round(30 * count / peak):<30} {count}")
        verdict = (
            f"chi-square {stats.chi_square:.2f}, {stats.degrees_of_freedom} df, "
            f"p = {stats.p_value:.3f}"
        )
        if not stats.enough_data:
            verdict += " (too few dice for a verdict)"
        lines.append(f"    {verdict}")
    if reply.dice:
        dice = ", ".join(f"#{d.seq} d{d.sides}={d.face} ({d.label})" for d in reply.dice)
        tail = (
            f" · epoch {reply.epoch} commitment {short_hash(reply.commitment)}"
            if (reply.commitment)
            else ""
        )
        lines.append(f"  dice: {dice}{tail}")
    if reply.file is not None and not reply.file_in_fields:
        lines.append(f"  file: {reply.file.filename} ({counted(len(reply.file.content), 'byte')})")
    if shows_entry and reply.anchor:
        lines.append(f"  anchor: {reply.anchor}")
    if reply.notice:
        lines.append(f"  notice: @{reply.notice}")
    return "\n".join(lines)


__all__ = ["dice_count", "face_rows", "render_roll", "render_text"]
