"""/game status, /game log and /game export: reading a game, logging nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.log.deadlines import Settings
from bot.log.export import export_game
from bot.log.signing import signer
from bot.models import Actor, FollowUp, Place, Reply, ReplyFile, short_hash
from bot.service.beacon import beacon_status
from bot.service.change import Live
from bot.service.core import Core
from bot.service.handlers import read
from bot.service.options import command_path
from bot.service.replies import (
    SETTLED_WORDS,
    declared_what,
    lapsed_words,
    proposal_text,
    result_words,
    table_title,
)
from bot.storage import GameRow
from bot.table import commands as gc
from bot.table.reminders import clock_status
from bot.table.results import RESULT, settled_by
from bot.table.rulings import awaiting
from bot.web import PAGE_NAME, verifier_page
from rules_core.words import counted

LOG_PAGE = 20
"""At most this many entries on one page of ``/game log`` (an embed holds 25 fields)."""


LOG_PAGE_CHARS = 4000
"""At most this many characters of entries on one page (an embed holds 6000 in all)."""


LOG_ENTRY_CHARS = 300
"""An entry's line in ``/game log`` is cut to this length (the export has it whole)."""


CLOCK_SUMMARIES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "game.deadline": lambda e: f"deadline {Settings.from_json(e['clock']).words()}",
    "game.pause": lambda e: f"pause until {e['until'][:16].replace('T', ' ')} UTC",
    "game.resume": lambda e: f"end of the pause of entry {e['pause']}",
    "game.extend": lambda e: f"extension {e['count']} of {e['of']} ({e['side']})",
    "game.missed": lambda e: f"{e['player']['name']} ({e['side']}) missed the deadline",
    "game.claim": lambda e: f"claims a forfeit against {e['player']['name']} ({e['against']})",
}
"""A line of the deadlines' entries in /game log and on the board."""


EFFECT_CHARS = 100
"""An action's effect in a log line, when its rules gave no facts, is cut to this length."""


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word, with an ellipsis.

    >>> _cut("Rally Phase of Allied — Player Turn 1 begins", 20)
    'Rally Phase of…'
    """
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:—") + "…"


_EFFECTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "game.new": lambda e: f"{e['system']} game: {', '.join(e['sides'])}",
    "game.seat": lambda e: f"{e['side']} seat: {e['player']['name']}{lapsed_words(e)}",
    "game.referee.add": lambda e: f"{e['user']['name']} is a referee",
    "game.referee.remove": lambda e: f"{e['user']['name']} is no longer a referee",
    "game.seed": lambda e: "a seed phrase joins the players' seeds",
    "game.rotate": lambda e: (
        f"epoch {e['revealed_epoch']}'s seed revealed, epoch {e['next_epoch']} committed"
    ),
    "game.notices": lambda e: f"turn notices {'on' if e['on'] else 'off'}",
    "game.result": lambda e: (
        f"{e['scenario']}: "
        + ("a draw" if e["winner"] == "draw" else f"{e['winner']} wins")
        + f" ({e['attacker']} attacked)"
    ),
    "game.end": lambda e: "game over, dice seed revealed",
}
"""What a table command's entry did, in a few words (``/game log``, the board)."""


def _action_effect(entry: Mapping[str, Any]) -> str:
    """A system action's effect: its facts, as its reply gives them after the arrow, or (an
    action whose rules give none, such as set-up or a phase) its first step, cut short, with
    an ellipsis when the reply says more."""
    outcome = entry["outcome"]
    facts = "; ".join(f"{a} {b}" for a, b in outcome["facts"])
    if facts or not outcome["steps"]:
        return facts
    first = _cut(outcome["steps"][0]["text"], EFFECT_CHARS)
    return first if len(outcome["steps"]) == 1 or first.endswith("…") else f"{first} …"


def entry_line(entry: Mapping[str, Any]) -> str:
    """One log entry in a line: who, the command, and what it did.

    >>> entry_line({"kind": "game.notices", "by": {"name": "bob"}, "on": False})
    'bob: /game notices → turn notices off'
    """
    kind = entry["kind"]
    who = entry["by"]["name"]
    if kind == "action":
        effect = _action_effect(entry)
        dice = " ".join(f"#{d['seq']}={d['face']}" for d in entry["dice"])
        agreed = entry.get("agreed")
        confirmed = f" (proposal #{agreed['proposal']} confirmed)" if agreed else ""
        text = f"{who}: {command_path(entry['action']['action'])}"
        text += f" → {effect}" if effect else ""
        return text + confirmed + (f" [{dice}]" if dice else "")
    if kind == "roll":
        dice = " ".join(f"#{d['seq']}={d['face']}" for d in entry["dice"])
        category = f"{entry['category']} " if entry.get("category") else ""
        reason = f" for {entry['reason']}" if entry.get("reason") else ""
        return f"{who}: /roll {category}{entry['text']}{reason} [{dice}]"
    if kind == "game.void":
        return f"{who}: void entry {entry['entry']} ({entry['reason']})"
    if kind == "game.decline":
        verb = "withdraws" if entry["withdrawn"] else "declines"
        reason = f" ({entry['reason']})" if entry["reason"] else ""
        return f"{who}: {verb} proposal {entry['entry']}{reason}"
    if kind == "game.propose":
        return f"{who}: proposes {proposal_text(entry['command'])}"
    if kind == "declared":
        return f"{who}: {declared_what(entry)} declared for beacon round {entry['round']}"
    if kind == "resolved":
        inner = entry_line({**entry, "kind": entry["resolves"]})
        return f"{inner} (entry {entry['declared']}, beacon round {entry['beacon']['round']})"
    if kind == "game.cancel":
        return f"{who}: cancel entry {entry['entry']} ({entry['reason']})"
    if kind == "game.result":
        return f"{who}: result {result_words(entry)}" + SETTLED_WORDS.get(
            str(entry.get("settled")), ""
        )
    if kind == "game.dispute":
        reason = f" ({entry['reason']})" if entry["reason"] else ""
        return f"{who}: disputes the result of proposal {entry['entry']}{reason}"
    if kind == "game.ruling":
        decided = "grants" if entry["decision"] == "grant" else "refuses"
        return f"{who}: rules on entry {entry['entry']}: {decided} ({entry['reason']})"
    if kind in CLOCK_SUMMARIES:
        return f"{who}: {CLOCK_SUMMARIES[kind](entry)}"
    effect = _EFFECTS[kind](entry) if kind in _EFFECTS else table_title(entry)
    return f"{who}: {command_path(kind)} → {effect}"


def sealed_status(notes: Mapping[str, Any]) -> str:
    """One line per sealed note: its entry, its sealer, whether the bot holds it, its reveal."""
    lines = []
    for seq, note in sorted(notes.items(), key=lambda item: int(item[0])):
        held = "held by the bot" if "text" in note else "their own commitment"
        shown = f"revealed at #{note['revealed']}" if note["revealed"] else "sealed"
        lines.append(f"#{seq} {note['by']['name']}: {shown} ({held})")
    return "\n".join(lines)


@read(gc.GameStatus)
async def status(core: Core, place: Place, actor: Actor, command: gc.GameStatus) -> Reply:
    """/game status: sides, seats, referees, the log head, the commitment, the table's summary;
    hashes shortened as a person reads them (the export has them whole), empty fields left out."""
    row = await core.readable(place)
    seated = row.table["seats"]  # in the game's order of sides (storage may sort the keys)
    seats = ", ".join(
        f"{side}: {seated[side]['name'] if seated.get(side) else '(empty)'}"
        for side in row.table["sides"]
    )
    disputed = awaiting(row.table, RESULT)
    voids = ", ".join(f"{v['name']} {v['count']}" for v in row.table.get("voids", {}).values())
    shown: tuple[tuple[str, str], ...] = (
        ("System", row.system),
        ("Status", f"{row.status}, result disputed" if disputed else row.status),
        ("Seats", seats),
        ("Referees", ", ".join(r["name"] for r in row.table["referees"])),
        ("Who acts for whom", who_acts_for_whom(row.table)),
        ("Log head", f"#{row.head_seq} {short_hash(row.head_hash)}"),
        ("Next die", f"#{row.next_die}"),
        ("Dice commitment", f"epoch {row.epoch}: {short_hash(row.commitment)}"),
        ("Players' seeds", short_hash(row.players_mix.hex()) if any(row.players_mix) else ""),
        ("Voided entries", ", ".join(map(str, row.table["voided"]))),
        ("Turn notices", "on" if row.table.get("notices", True) else "off"),
        ("Voids by", voids),
    )
    fields = tuple((name, value) for name, value in shown if value)  # nothing said of nothing
    proposals = row.table.get("proposals", ())
    if proposals:
        fields = (
            *fields,
            (
                "Waiting for confirmation",
                "\n".join(
                    f"#{p['entry']} {p['by']['name']}: {proposal_text(p['command'])}"
                    for p in proposals
                ),
            ),
        )
    result = row.table.get("result")
    if result:
        fields = (*fields, ("Result", f"{result_words(result)}, {settled_by(result)}"))
    matters = awaiting(row.table)
    if matters:
        fields = (*fields, ("Waiting for a ruling", "\n".join(map(matter_line, matters))))
    if row.table.get("beacon"):
        fields = (*fields, *beacon_status(row.table))
    notes = row.table.get("sealed", {})
    if notes:  # who sealed what, never the text
        fields = (*fields, ("Sealed notes", sealed_status(notes)))
    system = core.system(row.system)
    live = core.cached(place)
    state = live.state if live is not None else system.parse_state(row.state_json)
    summary = system.summary(state)
    if summary:
        fields = (*fields, ("Table", "\n".join(summary)))
    if row.table.get("clock"):
        fields = (*fields, ("Deadline", Settings.from_json(row.table["clock"]).words()))
        clock = await clock_status(core, Live(row=row, state=state, system=system))
        if clock:
            fields = (*fields, ("Clock", "\n".join(clock)))
    key = await signer(core.repo)
    signature = key.sign_head(row.public_id, row.head_seq, row.head_hash)
    fields = (
        *fields,
        ("Signed head", f"{row.head_seq}:{row.head_hash}:{signature}"),
        ("Bot key", key.public_key),
    )
    return listing(core, row, "/game status", f"{row.title} ({row.status})", fields)


@read(gc.GameLog)
async def log(core: Core, place: Place, actor: Actor, command: gc.GameLog) -> Reply:
    """/game log: the ``last`` entries before entry ``before`` (default: up to the head), newest
    kept: a page holds at most ``LOG_PAGE`` entries and ``LOG_PAGE_CHARS`` characters (what one
    Discord embed shows), and the entries asked for but not shown are named with the command
    that shows them, never dropped silently."""
    last, before = command.last, command.before
    row = await core.readable(place)
    voided = set(row.table["voided"])
    upto = row.head_seq if before is None else min(before - 1, row.head_seq)
    asked = await core.repo.entries(row.id, after=max(0, upto - last), upto=upto)
    page: list[tuple[int, str]] = []
    size = 0
    for entry in reversed(asked):
        text = entry_line(entry.data()) + (" (void)" if entry.seq in voided else "")
        if len(text) > LOG_ENTRY_CHARS:
            text = text[: LOG_ENTRY_CHARS - 1] + "…"
        if len(page) == LOG_PAGE or size + len(text) + 8 > LOG_PAGE_CHARS:
            break
        page.append((entry.seq, text))
        size += len(text) + 8
    page.reverse()
    fields = tuple((f"#{seq}", text) for seq, text in page)
    first, newest = page[0][0], page[-1][0]
    span = f"entry #{first}" if first == newest else f"entries #{first}–#{newest}"
    title = f"{row.title}: log {span} of {row.head_seq}"
    left = len(asked) - len(page)
    follow_ups: tuple[FollowUp, ...] = ()
    if first > 1:
        more = left or min(LOG_PAGE, first - 1)
        line = f"/game log last:{more} before:{first}"
        note = (
            f"{left} of the {counted(len(asked), 'entry', 'entries')} asked for "
            f"{'is' if left == 1 else 'are'} older than this page: {line}"
            if left
            else f"{'#1' if first == 2 else f'#1–#{first - 1}'}; the next page: {line}"
        )
        fields = (*fields, ("Older entries", note))
        follow_ups = (
            FollowUp(
                label="Older entries",
                command="game.log",
                options=(("last", more), ("before", first)),
            ),
        )
    reply = listing(core, row, "/game log", title, fields)
    return reply.model_copy(update={"follow_ups": follow_ups})


def who_acts_for_whom(table: Mapping[str, Any]) -> str:
    """Each seated person and the sides they act for alone; the referees without a seat.

    >>> print(who_acts_for_whom({"sides": ["Axis", "Allied"],
    ...     "seats": {"Axis": {"id": 1, "name": "ann"}, "Allied": {"id": 2, "name": "ben"}},
    ...     "referees": [{"id": 1, "name": "ann"}, {"id": 3, "name": "org"}]}))
    ann: Axis; Allied only by proposals its player confirms (a referee who plays)
    ben: Allied
    org: every side (a referee without a seat)
    server administrators and the referee role: every side, while without a seat
    """
    referees = {r["id"] for r in table["referees"]}
    held: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for side in table["sides"]:
        player = table["seats"].get(side)
        if player:
            held.setdefault(player["id"], []).append(side)
            names[player["id"]] = player["name"]
    lines = []
    for who, sides in held.items():
        line = f"{names[who]}: {', '.join(sides)}"
        others = [side for side in table["sides"] if side not in sides]
        if who in referees and others:
            line += (
                f"; {' and '.join(others)} only by proposals its player confirms "
                "(a referee who plays)"
            )
        lines.append(line)
    lines += [
        f"{r['name']}: every side (a referee without a seat)"
        for r in table["referees"]
        if r["id"] not in held
    ]
    lines.append("server administrators and the referee role: every side, while without a seat")
    return "\n".join(lines)


def matter_line(matter: Mapping[str, Any]) -> str:
    """A matter waiting for a ruling, as /game status lists it."""
    if matter["kind"] == RESULT:
        return (
            f"#{matter['entry']} {matter['by']['name']} disputes "
            f"{result_words(matter['result'])}, proposed by {matter['proposed_by']['name']}: "
            f"/game rule entry:{matter['entry']}"
        )
    if matter["kind"] == "forfeit":
        return (
            f"#{matter['entry']} {matter['by']['name']} claims a forfeit against "
            f"{matter['player']['name']} ({matter['against']}): /game rule entry:{matter['entry']}"
        )
    return f"#{matter['entry']} {matter['kind']}: /game rule entry:{matter['entry']}"


def listing(
    core: Core, row: GameRow, command: str, title: str, fields: tuple[tuple[str, str], ...]
) -> Reply:
    """A read of the game's table, shown only to the asker."""
    return Reply(
        command=command,
        title=title,
        game_title=row.title,
        system=row.system,
        game_id=row.public_id,
        seq=row.head_seq,
        fields=fields,
        commitment=row.commitment,
        epoch=row.epoch,
        scripted=core.scripted,
        ephemeral=True,
    )


@read(gc.GameExport)
async def export(core: Core, place: Place, actor: Actor, command: gc.GameExport) -> Reply:
    """/game export: the whole log as a file anyone can verify offline (and the page)."""
    row = await core.readable(place)
    text = await export_game(core.repo, row)
    attachments = (ReplyFile(filename=PAGE_NAME, content=verifier_page()),) if command.page else ()
    return Reply(
        attachments=attachments,
        command="/game export",
        title=f"{row.title}: {counted(row.head_seq, 'log entry', 'log entries')} exported",
        game_title=row.title,
        system=row.system,
        game_id=row.public_id,
        seq=row.head_seq,
        commitment=row.commitment,
        epoch=row.epoch,
        scripted=core.scripted,
        file=ReplyFile(filename=f"game-{row.public_id}.jsonl", content=text.encode("utf-8")),
    )
