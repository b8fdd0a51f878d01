"""/stats: the dice counts of a game and the fairness test."""

from __future__ import annotations

from bot.models import Actor, Place, Reply
from bot.service.core import Core
from bot.service.handlers import read
from bot.stats.faces import face_stats
from bot.table import commands as gc
from rules_core.roll_categories import category_named
from rules_core.words import counted


def category_lines(sums: list[tuple[str, int, int, int]]) -> list[str]:
    """One line per roll category from ``(label, sides, dice, sum)`` rows: how many DR and dr
    and their mean (a DR's two dice are labelled ``… DR (colored)`` and ``… DR (white)``).

    >>> category_lines([("IFT DR (colored)", 6, 2, 7), ("IFT DR (white)", 6, 2, 5),
    ...                 ("RS dr", 6, 3, 9), ("DR (colored)", 6, 1, 3), ("DR (white)", 6, 1, 4)])
    ['(none): 1 DR, mean 7.00', 'IFT: 2 DR, mean 6.00', 'RS: 3 dr, mean 3.00']
    """
    found: dict[tuple[str, str], list[int]] = {}
    for label, sides, count, total in sums:
        if sides != 6:
            continue
        for suffix, kind, counts_a_roll in (
            ("DR (colored)", "DR", True),
            ("DR (white)", "DR", False),
            ("dr", "dr", True),
        ):
            if label == suffix or label.endswith(" " + suffix):
                name = label[: -len(suffix)].strip() or "(none)"
                tally = found.setdefault((name, kind), [0, 0])
                tally[0] += count if counts_a_roll else 0
                tally[1] += total
                break
    return [
        f"{name}: {rolls} {kind}, mean {faces / rolls:.2f}"
        for (name, kind), (rolls, faces) in sorted(found.items())
        if rolls
    ]


@read(gc.Stats)
async def stats(core: Core, place: Place, actor: Actor, command: gc.Stats) -> Reply:
    """/stats: the dice counts of the scope asked for, by category, with the fairness test."""
    game_id = None
    channel_id: int | None = place.channel_id
    if command.scope == "game":
        game_id = (await core.readable(place)).id
    elif command.scope == "server":
        channel_id = None
    user_id = command.player.id if command.player else None
    category = category_named(command.category) if command.category.strip() else None
    counts = await core.repo.face_counts(
        guild_id=place.guild_id,
        channel_id=channel_id,
        game_id=game_id,
        user_id=user_id,
        category=category,
    )
    stats = tuple(face_stats(sides, counts[sides]) for sides in sorted(counts))
    who = command.player.name if command.player else "everyone"
    fields: tuple[tuple[str, str], ...] = ()
    if category is None:
        sums = await core.repo.label_sums(
            guild_id=place.guild_id, channel_id=channel_id, game_id=game_id, user_id=user_id
        )
        lines = category_lines(sums)
        if lines:
            fields = (("By category", "\n".join(lines)),)
    fields = (
        *fields,
        *await _scripted_dice(core, place, game_id, channel_id, user_id, category),
    )
    kind = f"{category} dice" if category else "Dice"
    return Reply(
        command="/stats",
        title=f"{kind} of {who} in this {command.scope}",
        fields=fields,
        stats=stats,
        scripted=core.scripted,
        ephemeral=True,
    )


async def _scripted_dice(
    core: Core,
    place: Place,
    game_id: int | None,
    channel_id: int | None,
    user_id: int | None,
    category: str | None,
) -> tuple[tuple[str, str], ...]:
    """In a scripted run (the console's ``--dice``), its scripted dice in the same scope,
    apart from the random ones and marked so: chosen faces prove nothing about the dice, so
    they are counted but never tested. The bot itself never reads them (it rolls no scripted
    die), so it does not pay for reading the logs."""
    if not core.scripted:
        return ()
    counts: dict[int, dict[int, int]] = {}
    sums: dict[tuple[str, int], list[int]] = {}
    for game in await core.repo.games_in_guild(place.guild_id):
        if (game_id is not None and game.id != game_id) or (
            channel_id is not None and game.channel_id != channel_id
        ):
            continue
        for stored in await core.repo.entries(game.id):
            entry = stored.data()
            if user_id is not None and entry.get("by", {}).get("id") != user_id:
                continue
            for die in entry.get("dice", ()):
                label, sides, face = str(die["label"]), int(die["sides"]), int(die["face"])
                if not die.get("scripted") or (
                    category is not None and not label.startswith(category + " ")
                ):
                    continue
                faces = counts.setdefault(sides, {})
                faces[face] = faces.get(face, 0) + 1
                tally = sums.setdefault((label, sides), [0, 0])
                tally[0] += 1
                tally[1] += face
    if not counts:
        return ()
    lines = [
        f"d{sides}: {counted(sum(faces.values()), 'die', 'dice')} — "
        + " ".join(f"{face}:{faces.get(face, 0)}" for face in range(1, sides + 1))
        for sides, faces in sorted(counts.items())
    ]
    if category is None:
        lines += category_lines([(label, sides, n, t) for (label, sides), (n, t) in sums.items()])
    return (("Scripted dice (chosen, not random: never tested)", "\n".join(lines)),)
