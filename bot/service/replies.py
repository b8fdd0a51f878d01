"""The :class:`~bot.models.Reply` of a logged entry, fresh or read back from the log."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from bot.log.deadlines import Settings
from bot.models import DieView, FollowUp, OddsLine, Reply, ReplyFile, UserRef, with_verb
from bot.service.change import Shown
from bot.service.options import command_path
from bot.storage import GameRow
from bot.table.commands import TABLE_BY_ACTION
from rules_core.dice import Roll
from rules_core.errors import RulesError
from rules_core.outcome import Step
from rules_core.scenario import SETUP_ACTION, setup_lines, setup_text
from rules_core.system import get_system


def proposal_text(command: Mapping[str, Any]) -> str:
    """``/asl level side:Axis level:2`` — a proposed command as typed.

    >>> proposal_text({"action": "game.void", "entry": 7, "reason": "misclick"})
    '/game void entry:7 reason:misclick'
    """
    if command.get("action") == SETUP_ACTION:  # a scenario: its commands as they are typed
        return setup_text(command)
    options = " ".join(
        f"{k.replace('_', '-')}:{_option_text(v)}"
        for k, v in _as_typed(command).items()
        if k != "action" and v not in (None, "", [], ())
    )
    return f"{command_path(str(command['action']))} {options}".strip()


def _as_typed(command: Mapping[str, Any]) -> Mapping[str, Any]:
    """A logged command's options without those left at their default (``update:false``), as
    its proposer typed it; a command of no system installed here, with every option.

    >>> _as_typed({"action": "asl.phase", "phase": "pfph", "side": "Axis", "correction": False})
    {'phase': 'pfph', 'side': 'Axis'}
    """
    action = str(command.get("action"))
    try:
        model = TABLE_BY_ACTION.get(action)
        parsed = (
            model.model_validate(command)
            if model is not None
            else get_system(action.split(".")[0]).parse_action(command)
        )
    except (RulesError, ValueError):
        return command
    return {k: command[k] for k in parsed.model_dump(exclude_defaults=True) if k in command}


def who_confirms(needs: Sequence[str]) -> str:
    """Who may confirm a proposal: the player of a side it needs, or — when its proposer holds
    every side it concerns — a referee without a seat.

    >>> who_confirms(["Allied"]), who_confirms([])
    ('the Allied player', 'a referee without a seat')
    """
    return f"the {' or '.join(needs)} player" if needs else "a referee without a seat"


SETTLED_WORDS = {
    "agreed": ", agreed by both sides",
    "conceded": ", conceded",
    "referee": ", recorded by a referee",
}
"""How a logged result was settled, as its title says it (a ruling's result is in its ruling)."""


def result_words(result: Mapping[str, Any]) -> str:
    """``Axis wins FT91 (Axis attacked)``.

    >>> result_words({"winner": "draw", "scenario": "J76", "attacker": "Allied"})
    'a draw in J76 (Allied attacked)'
    """
    outcome = "a draw in" if result["winner"] == "draw" else f"{result['winner']} wins"
    return f"{outcome} {result['scenario']} ({result['attacker']} attacked)"


def creator_role(name: str) -> str:
    """What the creator of a game may do, as ``/game new`` tells them.

    >>> creator_role("ann")[:44]
    'ann (the creator): for every side without a '
    """
    return (
        f"{name} (the creator): for every side without a seat; once seated, for the other "
        "side only by proposals its player confirms"
    )


def _option_text(value: Any) -> str:
    if isinstance(value, Mapping) and "id" in value and "name" in value:  # a user: @name
        return _option_text(f"@{value['name']}")
    if isinstance(value, list | tuple):
        value = ", ".join(map(str, value))
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f'"{text}"' if " " in text or not text else text


def declared_what(entry: Mapping[str, Any]) -> str:
    """What a declaration declares: ``/asl fire`` or ``/roll DR``."""
    if entry["declares"] == "action":
        return command_path(entry["action"]["action"])
    return f"/roll {entry['expression']}"


def _utc(text: str) -> str:
    """A logged time as a reader reads it: ``2026-01-03 20:00 UTC``."""
    return datetime.fromisoformat(text).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _roll(data: Mapping[str, Any]) -> Roll:
    return Roll.model_validate(data)


def odds_lines(odds: Mapping[Any, Fraction]) -> tuple[OddsLine, ...]:
    lines = [
        OddsLine(
            facts=tuple((str(a), str(b)) for a, b in facts),
            numerator=p.numerator,
            denominator=p.denominator,
        )
        for facts, p in odds.items()
    ]
    lines.sort(key=lambda line: -line.probability)
    return tuple(lines)


def entry_reply(
    entry: Mapping[str, Any],
    row: GameRow,
    *,
    replayed: bool,
    scripted: bool,
    shown: Shown | None = None,
) -> Reply:
    """The reply of a logged entry (a fresh commit or a replay); ``shown`` are the steps, facts
    and rolls as the rules made them (a fresh commit), so they are not rebuilt from the entry's
    JSON; ``scripted``: this run's dice are scripted (the console's ``--dice``)."""
    kind = entry["kind"]
    if kind in ("declared", "resolved"):
        return _beacon_reply(entry, row, replayed=replayed, scripted=scripted, shown=shown)
    # a fresh entry's dice are this process's own records (DieRecord.to_json): not validated
    # again; a replayed entry's come from the stored log
    logged = entry.get("dice")
    dice = tuple(DieView(**d) if replayed else built(DieView, d) for d in logged) if logged else ()
    base: dict[str, Any] = {
        "notify": _others(entry, row) if dice else (),
        "game_title": row.title,
        "system": row.system,
        "game_id": row.public_id,
        "actor": entry["by"]["name"],
        "seq": entry["seq"],
        "entry_hash": entry.get("hash")
        or (row.head_hash if row.head_seq == entry["seq"] else None),
        "dice": dice,
        "epoch": entry["epoch"],
        "commitment": row.commitment,
        "scripted": scripted or any(d.scripted for d in dice),
        "replayed": replayed,
    }
    if kind == "action":
        return _action_reply(entry, shown, base, fresh=not replayed)
    if kind == "roll":
        return _roll_reply(entry, shown, base)
    return _table_reply(entry, row, base)


def _others(entry: Mapping[str, Any], row: GameRow) -> tuple[UserRef, ...]:
    """The seated players besides an entry's author (a result they may take by DM)."""
    seated = {p["id"]: p for p in row.table["seats"].values() if p}
    return tuple(
        UserRef(id=p["id"], name=p["name"]) for p in seated.values() if p["id"] != entry["by"]["id"]
    )


def _action_reply(
    entry: Mapping[str, Any], shown: Shown | None, base: dict[str, Any], *, fresh: bool = False
) -> Reply:
    """The reply of a system action's entry: its steps, facts and rolls. ``fresh``: an entry
    this process just made, whose values are valid as they are (not validated again)."""
    outcome = entry["outcome"]
    path = command_path(entry["action"]["action"])
    side = entry.get("side")
    referee_only = entry.get("referee_only") or ()
    agreed = entry.get("agreed")
    declared = (
        f"proposed by a referee, {agreed['proposed_by']['name']}, and agreed"
        if agreed
        else "declared by a referee"
    )
    if shown is None:
        fresh = False
        shown = (
            tuple(Step.model_validate(s) for s in outcome["steps"]),
            tuple((str(a), str(b)) for a, b in outcome["facts"]),
            tuple(_roll(r) for r in outcome["rolls"]),
        )
    values = {
        "command": path,
        "title": f"{path}" + (f" — {side}" if side else ""),
        "side": side,
        "fields": (
            (("Referee", f"{', '.join(referee_only)} — {declared}"),) if referee_only else ()
        ),
        "steps": shown[0],
        "facts": shown[1],
        "rolls": shown[2],
        **base,
    }
    # the rules' outcome is a validated model: its tuples are what validation would keep
    if fresh and all(type(part) is tuple for part in shown):
        return built(Reply, values)
    return Reply(**values)


M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__


def built(model: type[M], values: Mapping[str, Any]) -> M:
    """``model(**values)`` without validating again values this process made valid itself, for
    a model of plain fields (:func:`_template`): the values must be what validation keeps as
    it is (the field's own types: a tuple, not a list; an ``int``, not a string of digits);
    every field not given takes its default. (pydantic's ``model_construct`` does the same in
    Python, slower than the validation it skips.)

    >>> die = {"seq": 3, "sides": 6, "face": 4, "label": "DR", "epoch": 1}
    >>> built(DieView, die) == DieView(**die)
    True
    >>> built(DieView, die).model_fields_set == DieView(**die).model_fields_set
    True
    """
    template, required = _TEMPLATES.get(model) or _template(model)
    if not required <= values.keys():
        raise TypeError(f"{model.__name__} needs {', '.join(sorted(required - values.keys()))}")
    data = template.copy()  # the fields in their declared order, as validation writes them
    data.update(values)
    made = model.__new__(model)
    _set(made, "__dict__", data)
    _set(made, "__pydantic_fields_set__", set(values))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


_TEMPLATES: dict[type[BaseModel], tuple[dict[str, Any], frozenset[str]]] = {}
_IMMUTABLE = (type(None), type(PydanticUndefined), bool, int, str, tuple, frozenset)
"""The defaults a built model may share with every other (validation would not copy them)."""


def _template(model: type[BaseModel]) -> tuple[dict[str, Any], frozenset[str]]:
    """Every field of ``model`` with its default (None for a required one) and the required
    fields' names; read once per model. Only a model without validators, default factories,
    mutable defaults, private attributes, extra fields or ``model_post_init`` qualifies:
    nothing else happens when pydantic builds one from valid values."""
    decorators = model.__pydantic_decorators__
    plain = (
        not (decorators.validators or decorators.field_validators)
        and not (decorators.root_validators or decorators.model_validators)
        and not model.__private_attributes__
        and model.model_config.get("extra") in (None, "ignore")
        and model.model_post_init is BaseModel.model_post_init
        and all(
            info.default_factory is None and isinstance(info.default, _IMMUTABLE)
            for info in model.model_fields.values()
        )
    )
    if not plain:
        raise TypeError(f"{model.__name__} is built by validation only")
    template = {
        name: None if info.default is PydanticUndefined else info.default
        for name, info in model.model_fields.items()
    }
    required = frozenset(n for n, i in model.model_fields.items() if i.default is PydanticUndefined)
    known = _TEMPLATES[model] = (template, required)
    return known


def _roll_reply(entry: Mapping[str, Any], shown: Shown | None, base: dict[str, Any]) -> Reply:
    """The reply of a ``/roll`` entry: its total (or totals) and the category's notes."""
    reason = f" for {entry['reason']}" if entry["reason"] else ""
    category = f"{entry['category']} " if entry.get("category") else ""
    totals = entry.get("totals")
    return Reply(
        command="/roll",
        title=f"{category}{entry['text']}{reason}",
        rolls=shown[2] if shown is not None else tuple(_roll(r) for r in entry["rolls"]),
        steps=(
            shown[0]
            if shown is not None
            else tuple(Step.model_validate(n) for n in entry.get("notes", []))
        ),
        fields=(
            ("Totals", ", ".join(map(str, totals))) if totals else ("Total", str(entry["total"])),
        ),
        **base,
    )


def lapsed_words(entry: Mapping[str, Any]) -> str:
    """What a reseat withdrew: the proposals its seat's former player made for that side.

    >>> print(lapsed_words({"side": "Axis", "lapsed": [4, 7]}))
    ; proposals 4 and 7, made by the Axis seat's former player, lapse
    """
    lapsed = entry.get("lapsed")
    if not lapsed:
        return ""
    numbers = ", ".join(map(str, lapsed[:-1])) + " and " if len(lapsed) > 1 else ""
    return (
        f"; proposal{'s' if len(lapsed) > 1 else ''} {numbers}{lapsed[-1]}, made by the "
        f"{entry['side']} seat's former player, {'lapse' if len(lapsed) > 1 else 'lapses'}"
    )


def _forfeit_granted(entry: Mapping[str, Any]) -> bool:
    """A ruling that grants a forfeit claim (``/game deadline claim``)."""
    return entry.get("matter") == "forfeit" and entry["decision"] == "grant"


_TITLES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "game.new": lambda e: f"New {e['system']} game: {', '.join(e['sides'])}",
    "game.seat": lambda e: (
        f"{with_verb(e['player']['name'], 'takes')} the {e['side']} seat" + lapsed_words(e)
    ),
    "game.referee.add": lambda e: f"{with_verb(e['user']['name'], 'is')} a referee",
    "game.referee.remove": lambda e: f"{with_verb(e['user']['name'], 'is')} no longer a referee",
    "game.seed": lambda e: f"{e['by']['name']} added a seed phrase",
    "game.rotate": lambda e: (
        f"Dice seed of epoch {e['revealed_epoch']} revealed; epoch {e['next_epoch']} committed"
    ),
    "game.void": lambda e: f"Entry {e['entry']} is void: {e['reason']}",
    "game.notices": lambda e: f"Turn notices {'on' if e['on'] else 'off'}",
    "game.result": lambda e: (
        f"Result of {e['scenario']}: "
        + ("a draw" if e["winner"] == "draw" else f"{e['winner']} wins")
        + f" ({e['attacker']} attacked)"
        + SETTLED_WORDS.get(str(e.get("settled")), "")
    ),
    "game.propose": lambda e: (
        f"{with_verb(e['by']['name'], 'proposes')} {proposal_text(e['command'])}; "
        f"{who_confirms(e['needs'])} confirms with /game confirm entry:{e['seq']}"
        + (
            f" or disputes it with /game decline entry:{e['seq']}"
            if e["command"].get("action") == "game.result"
            else ""
        )
    ),
    "game.dispute": lambda e: (
        f"{with_verb(e['by']['name'], 'disputes')} the result of proposal {e['entry']}"
        + (f" ({e['reason']})" if e["reason"] else "")
        + f"; a referee without a seat rules on it with /game rule entry:{e['seq']}"
    ),
    "game.ruling": lambda e: (
        f"Ruling on entry {e['entry']}: "
        + ("granted" if e["decision"] == "grant" else "refused")
        + (f" — {result_words(e['result'])}" if "result" in e else "")
        + (f" — {e['side']} wins by forfeit" if _forfeit_granted(e) else "")
        + f": {e['reason']}"
    ),
    "game.decline": lambda e: (
        f"Proposal {e['entry']} "
        + ("withdrawn" if e["withdrawn"] else "declined")
        + (f": {e['reason']}" if e["reason"] else "")
    ),
    "game.end": lambda e: "The game is over; the dice seed is revealed",
    "game.seal": lambda e: f"{with_verb(e['by']['name'], 'seals')} a note",
    "game.reveal": lambda e: f"The note sealed at entry {e['entry']} is revealed",
    "game.deadline": lambda e: f"Deadline: {Settings.from_json(e['clock']).words()}",
    "game.pause": lambda e: (
        f"The deadlines are paused until {_utc(e['until'])}"
        + (f": {e['reason']}" if e.get("reason") else "")
    ),
    "game.resume": lambda e: f"The pause of entry {e['pause']} is over; the deadlines run again",
    "game.extend": lambda e: (
        f"{with_verb(e['by']['name'], 'takes')} extension {e['count']} of {e['of']}: the "
        f"{e['side']} deadline moves to {_utc(e['deadline'])}"
    ),
    "game.missed": lambda e: (
        f"{with_verb(e['player']['name'], 'missed')} the deadline ({e['side']}, waited for "
        f"since entry {e['since']}; due {_utc(e['deadline'])})"
    ),
    "game.claim": lambda e: (
        f"{with_verb(e['by']['name'], 'claims')} a forfeit: {e['player']['name']} "
        f"({e['against']}) silent since entry {e['since']}; a referee without a seat rules with "
        f"/game rule entry:{e['seq']}" + (f" ({e['reason']})" if e.get("reason") else "")
    ),
    "game.cancel": lambda e: (
        f"Entry {e['entry']} is cancelled before beacon round {e['round']}: {e['reason']}"
    ),
}
"""The title of each table command's entry."""


def table_title(entry: Mapping[str, Any]) -> str:
    """The title of a table command's entry (``bob takes the Axis seat``)."""
    return _TITLES[entry["kind"]](entry)


def _table_reply(entry: Mapping[str, Any], row: GameRow, base: dict[str, Any]) -> Reply:
    """The reply of a table command's entry: its title, and the seeds, commitments, phrase or
    proposed set-up it shows."""
    kind = entry["kind"]
    fields: tuple[tuple[str, str], ...] = ()
    if kind == "game.new":
        base["commitment"] = entry["commitment"]
        fields = (
            ("Dice commitment", entry["commitment"]),
            ("Game id", entry["game"]),
            ("Referee", creator_role(entry["by"]["name"])),
        )
    elif kind == "game.rotate":
        base["commitment"] = entry["next_commitment"]
        fields = (
            (f"Seed of epoch {entry['revealed_epoch']}", entry["revealed_seed"]),
            (f"Commitment of epoch {entry['next_epoch']}", entry["next_commitment"]),
        )
    elif kind == "game.end":
        fields = (
            (f"Seed of epoch {entry['revealed_epoch']}", entry["revealed_seed"]),
            *(
                (f"Note sealed at entry {n['entry']}", n["text"])
                for n in entry.get("revealed_notes", ())
            ),
        )
    elif kind == "game.seal":
        held = (
            f"the bot keeps the text and reveals it at /game end, or /game reveal "
            f"entry:{entry['seq']} sooner"
            if entry["held"]
            else f"{entry['by']['name']}'s own commitment: /game reveal entry:{entry['seq']} with "
            "the text and the salt, before the game ends"
        )
        fields = (("Commitment", entry["commitment"]), ("Sealed", held))
    elif kind == "game.reveal":
        fields = (("Text", entry["text"]), ("Salt", entry["salt"]))
    elif kind == "game.seed":
        fields = (("Phrase", entry["phrase"]), ("Players' seeds", entry["players"]))
    file = None
    if kind == "game.propose" and entry["command"].get("action") == SETUP_ACTION:
        # the player asked to confirm reads every command of the scenario, not the first few
        text = "\n".join(setup_lines(entry["command"])) + "\n"
        fields = (("set-up", text.rstrip("\n")),)
        name = f"proposal-{entry['seq']}-setup.txt"
        file = ReplyFile(filename=name, content=text.encode("utf-8"))
    follow_ups: tuple[FollowUp, ...] = ()
    if kind == "game.propose" and entry["command"].get("action") == "game.result":
        # the other side's refusal of a result is a dispute; its proposer's, a withdrawal
        decline = (("entry", int(entry["seq"])),)
        follow_ups = (FollowUp(label=f"Dispute or withdraw #{entry['seq']}",
                               command="game.decline", options=decline),)  # fmt: skip
    return Reply(
        command=command_path(kind),
        title=_TITLES[kind](entry),
        fields=fields,
        revealed_seed=entry.get("revealed_seed"),
        file=file,
        file_in_fields=file is not None,
        follow_ups=follow_ups,
        **base,
    )


def _beacon_reply(
    entry: Mapping[str, Any],
    row: GameRow,
    *,
    replayed: bool,
    scripted: bool,
    shown: Shown | None,
) -> Reply:
    """The reply of a ``declared`` or ``resolved`` entry."""
    if entry["kind"] == "resolved":
        inner = entry_reply(
            {**entry, "kind": entry["resolves"]},
            row,
            replayed=replayed,
            scripted=scripted,
            shown=shown,
        )
        beacon = entry["beacon"]
        return inner.model_copy(
            update={
                "title": f"{inner.title} (beacon round {beacon['round']})",
                "fields": (
                    *inner.fields,
                    ("Declared", f"entry #{entry['declared']}"),
                    ("Beacon round", f"{beacon['round']}: randomness {beacon['randomness']}"),
                ),
            }
        )
    what = declared_what(entry)
    digest = str(entry.get("hash") or row.head_hash)
    return Reply(
        command=what.split(" ")[0] if entry["declares"] == "roll" else what,
        title=f"{what} declared: waiting for beacon round {entry['round']}",
        game_title=row.title,
        system=row.system,
        game_id=row.public_id,
        side=entry.get("side"),
        actor=entry["by"]["name"],
        seq=entry["seq"],
        entry_hash=digest,
        fields=(
            ("Beacon round", f"{entry['round']}, published at {entry['round_at']}"),
            ("Declaration", f"entry #{entry['seq']}, hash {digest}"),
        ),
        epoch=entry["epoch"],
        commitment=row.commitment,
        replayed=replayed,
        awaiting_round=entry["round"],
    )
