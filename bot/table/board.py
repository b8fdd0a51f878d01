"""/game board: a game's status at a glance, the message the Discord side keeps up to date.

The board shows whose turn it is (the phase and the player holding that side's seat), the seats,
the markers that matter in the game's system (its ``GameSystem.summary``: ASL malfunctioned and
disabled weapons, Low Ammo, Ammunition Shortage levels, broken units; OCS dumps in SP/T, Out of
Supply units, fuel; CWB Low and Out of Ammo units, wagons), the proposals waiting for the other
side, the disputes and claims waiting for a referee's ruling, a beacon declaration waiting for
its round, and the last few log entries (saying how many older ones are not shown). It always
fits one Discord embed.

Whether a game's board is on, and which message it is, are kept beside the game, not in its log
(``Repository.board``): the board changes nothing at the table — no die, no rule, no seat — so
turning it on or off is not something the verifiable record should carry, and a message id is
Discord's, not the game's.
"""

from __future__ import annotations

from bot.log.signing import signer
from bot.models import Actor, Place, Reply
from bot.service.beacon import beacon_status
from bot.service.change import Live
from bot.service.core import Core
from bot.service.handlers import read
from bot.service.permissions import require_player
from bot.service.replies import proposal_text
from bot.storage import BoardRow, GameRow
from bot.table import commands as gc
from bot.table.reads import entry_line, listing, matter_line
from bot.table.reminders import clock_status
from bot.table.rulings import awaiting

BOARD_ENTRIES = 5
"""The last log entries the board shows."""
BOARD_ENTRY_CHARS = 150
"""An entry's line on the board is cut to this length (``/game log`` shows more)."""
BOARD_FIELD_CHARS = 1000
"""A field's text is cut at a whole line to this length (Discord allows 1024)."""


def _cut_line(line: str, limit: int) -> str:
    """One line of names cut at a name to fit ``limit``, saying how many are left out.

    >>> _cut_line("Broken: A1, A2, A3, A4", 20)
    'Broken: A1 … 3 more'
    """
    if len(line) <= limit:
        return line
    names = line.split(", ")
    for kept in range(len(names) - 1, 0, -1):
        text = f"{', '.join(names[:kept])} … {len(names) - kept} more"
        if len(text) <= limit:
            return text
    return line[: limit - 1] + "…"


def _cut_lines(lines: list[str], limit: int = BOARD_FIELD_CHARS) -> str:
    """``lines`` joined, cut to ``limit``: a long line at a name, then at a whole line, with a
    count of what was left out.

    >>> _cut_lines(["a" * 25, "b" * 25, "c"], 50)
    'aaaaaaaaaaaaaaaaaaaaaaaaa\\n… 2 more lines'
    """
    lines = [_cut_line(line, limit // 2) for line in lines]
    kept: list[str] = []
    for index, line in enumerate(lines):
        rest = len(lines) - index
        note = f"… {rest} more line{'s' if rest != 1 else ''}"
        if len("\n".join([*kept, line])) + (len(note) + 1 if rest > 1 else 0) > limit:
            return "\n".join([*kept, note])
        kept.append(line)
    return "\n".join(kept)


@read(gc.GameBoard)
async def board(core: Core, place: Place, actor: Actor, command: gc.GameBoard) -> Reply:
    """Turn the channel's board on (and show it) or off; any player or referee may."""
    row = await core.readable(place)
    require_player(row, actor)
    saved = await core.repo.board(row.id)
    message_id = saved.message_id if saved is not None else None
    await core.repo.set_board(row.id, message_id, command.on)
    if not command.on:
        return listing(
            core,
            row,
            "/game board",
            "Status board off",
            (("Board", "No longer updated; /game board turns it on again."),),
        )
    return await board_reply(core, row, place)


async def board_of(core: Core, place: Place) -> tuple[Reply, BoardRow] | None:
    """The board of the channel's game (the latest: an ended game's board shows it ended)
    and where it is posted, if the board is on. Asked after every burst of actions, so a
    channel without a board on costs one keyed read, not the game's row."""
    on = await core.repo.channel_board(place.guild_id, place.channel_id)
    if on is None or not on.enabled:
        return None
    row = await core.repo.latest_game(place.guild_id, place.channel_id)
    if row is None:
        return None
    saved = await core.repo.board(row.id)
    if saved is None or not saved.enabled:
        return None
    return await board_reply(core, row, place), saved


async def board_posted(core: Core, place: Place, game_id: int, message_id: int) -> None:
    """Remember the message the board of game ``game_id`` now lives in."""
    saved = await core.repo.board(game_id)
    await core.repo.set_board(game_id, message_id, saved.enabled if saved else True)


async def board_reply(core: Core, row: GameRow, place: Place) -> Reply:
    """The board of ``row``: turn, seats, markers, proposals, beacon, last entries."""
    system = core.system(row.system)
    live = core.cached(place)
    # the cached state only if it is the row's (another process may have written since)
    fresh = live is not None and (live.row.id, live.row.head_seq) == (row.id, row.head_seq)
    state = live.state if fresh and live is not None else system.parse_state(row.state_json)
    summary = system.summary(state)
    phase = next((line for line in summary if line.startswith(("Phase:", "Turn "))), None)
    markers = [line for line in summary if line is not phase]
    seats: dict[str, dict[str, object] | None] = row.table["seats"]
    fields: list[tuple[str, str]] = []
    side = system.turn_side(state)
    acting = system.next_to_act(state)  # the DEFENDER in ASL's Defensive Fire Phase (A3)
    if phase is not None or acting:
        turn = phase.removeprefix("Phase:").strip() if phase else "Phase not set"
        if acting:
            holder = seats.get(acting)
            who = str(holder["name"]) if holder else "nobody seated"
            turn += f"\n{acting} to act: {who}"
        fields.append(("Turn", turn))
    clock = await clock_status(core, Live(row=row, state=state, system=system))
    if clock:
        fields.append(("Clock", "\n".join(clock)))
    fields.append(
        (
            "Seats",
            " · ".join(
                f"{s}: {seats[s]['name'] if seats.get(s) else '(empty)'}"  # type: ignore[index]
                for s in row.table["sides"]
            )
            or "none",
        )
    )
    if markers:
        fields.append(("Table", _cut_lines(markers)))
    proposals = row.table.get("proposals", ())
    if proposals:
        lines = [
            f"#{p['entry']} {p['by']['name']}: {proposal_text(p['command'])}" for p in proposals
        ]
        fields.append(("Waiting for confirmation", _cut_lines(lines)))
    matters = awaiting(row.table)
    if matters:
        fields.append(("Waiting for a ruling", _cut_lines([matter_line(m) for m in matters])))
    if row.table.get("beacon"):
        fields.extend(
            (name, _cut_lines(value.splitlines())) for name, value in beacon_status(row.table)
        )
    entries = await core.repo.last_entries(row.id, BOARD_ENTRIES)
    voided = set(row.table["voided"])
    lines = []
    for entry in sorted(entries, key=lambda e: e.seq):
        text = entry_line(entry.data()) + (" (void)" if entry.seq in voided else "")
        if len(text) > BOARD_ENTRY_CHARS:
            text = text[: BOARD_ENTRY_CHARS - 1] + "…"
        lines.append(f"#{entry.seq} {text}")
    older = row.head_seq - len(entries)
    if older > 0:
        lines.append(f"({older} older entr{'ies' if older != 1 else 'y'} not shown: /game log)")
    fields.append(("Last entries", _cut_lines(lines)))
    key = await signer(core.repo)  # the head it posts, signed (docs/TRUST.md)
    signature = key.sign_head(row.public_id, row.head_seq, row.head_hash)
    fields.append(
        (
            "Log head",
            f"anchor #{row.head_seq} · {row.head_hash[:8]}\n"
            f"signed {row.head_seq}:{row.head_hash}:{signature}",
        )
    )
    status = "" if row.status == "active" else f" ({row.status})"
    return Reply(
        command="/game board",
        title=f"{row.title}: status board{status}",
        game_title=row.title,
        system=row.system,
        game_id=row.public_id,
        side=side,
        fields=tuple(fields),
        commitment=row.commitment,
        epoch=row.epoch,
        scripted=core.scripted,
    )


__all__ = ["BOARD_ENTRIES", "board", "board_of", "board_posted", "board_reply"]
