"""Supply for Special Purposes: air bases, Hedgehogs, port repair, barrages (chart 13.2d).

Each is paid from one or more dumps by direct draw or HQ throw (12.3), as a ledger entry:

* air base refit: 1 T; the base may then refit up to twice its level in air units;
* build or improve an air base: 1 SP a level (2 SP in Very or Extremely Close terrain), one
  level per turn, an engineer-capable unit present;
* build or improve a Hedgehog: 2 SP a level, one level per turn (two, 4 SP, with an
  engineer-capable unit in the hex);
* port repair: 1 SP, an engineer-capable unit present;
* barrage: the cost the Barrage Table in use sets (the player states it).

Internal stocks never pay any of these (12.10: internals pay combat supply only).

>>> SPECIAL_COSTS["hedgehog"], SPECIAL_COSTS["refit"]
(8, 1)
"""

from __future__ import annotations

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Special
from rules_core.ocs.draw import supply_source
from rules_core.ocs.state import OcsOutcome, OcsState
from rules_core.ocs.tokens import format_tokens, parse_tokens
from rules_core.outcome import Outcome, Step
from rules_core.words import counted

SPECIAL_COSTS: dict[str, int] = {"refit": 1, "airbase": 4, "hedgehog": 8, "port": 4}
"""Chart 13.2d (Special Purposes), in Tokens per use or per level."""

CLOSE_TERRAIN_AIRBASE = 8
"""Chart 13.2d: an air base level costs 2 SP in Very or Extremely Close terrain."""

RULE = "OCS 13.2d"


def _levels_this_turn(state: OcsState, side: str, what: str, hex: str) -> int:
    return sum(
        levels
        for s, w, h, turn, levels in state.built
        if s == side and w == what and h == hex and turn == state.turn
    )


def resolve_special(state: OcsState, action: Special) -> Outcome[OcsState]:
    """Pay a Special Purpose's supply and record what it buys (chart 13.2d).

    :raises IllegalAction: no engineer-capable unit where one is needed, more levels than a
        turn allows, too little supply in the dumps named.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=8),))
    >>> out = resolve_special(s, Special(purpose="hedgehog", side="Axis", dump="A1", hex="B2"))
    >>> out.facts
    (('Hedgehog B2', '+1 level'), ('Dump', '-2 SP'))
    """
    state.check_side(action.side)
    purpose = action.purpose
    hex = (action.hex or "").strip()
    if purpose != "barrage" and not hex:
        raise InvalidInput("Name the hex of the air base, Hedgehog or port (hex).")
    if purpose != "barrage" and action.amount is not None:
        raise InvalidInput("Only a barrage states its cost; the chart sets the others.")
    if purpose in ("refit", "port", "barrage") and action.levels != 1:
        raise InvalidInput("Levels are built only for air bases and Hedgehogs.")
    if purpose != "airbase" and action.close_terrain:
        raise InvalidInput(
            "Very or Extremely Close terrain changes only an air base's cost (2 SP a level)."
        )
    if purpose in ("refit", "barrage") and action.engineer:
        raise InvalidInput(
            "An engineer-capable unit matters only to air bases, Hedgehogs and port repair."
        )
    if purpose in ("airbase", "port") and not action.engineer:
        raise IllegalAction(
            f"{'Building an air base' if purpose == 'airbase' else 'Port repair'} needs an "
            "engineer-capable unit present (say so with engineer:true).",
            rule=RULE,
        )
    notes: list[Step] = []
    if purpose == "barrage":
        if action.amount is None:
            raise InvalidInput("State the barrage's cost from the Barrage Table (amount).")
        cost = parse_tokens(action.amount)
        if cost == 0:
            raise InvalidInput("A barrage costs at least 1 T.")
        subject = "Barrage"
        result = "paid"
        notes.append(Step(rule="OCS 12.3", text=f"barrage supply: {format_tokens(cost)}"))
    elif purpose == "refit":
        cost = SPECIAL_COSTS["refit"]
        subject = f"Air base {hex}"
        result = "may refit"
        notes.append(
            Step(
                rule=RULE,
                text=f"air base in {hex}: 1 T drawn; it may refit up to twice its level in "
                "air units",
            )
        )
    elif purpose == "port":
        cost = SPECIAL_COSTS["port"]
        subject = f"Port {hex}"
        result = "repaired"
        notes.append(Step(rule=RULE, text=f"port in {hex} repaired (engineer present): 1 SP"))
    else:
        limit = 2 if purpose == "hedgehog" and action.engineer else 1
        done = _levels_this_turn(state, action.side, purpose, hex)
        if done + action.levels > limit:
            what = "a Hedgehog" if purpose == "hedgehog" else "an air base"
            extra = (
                " (two with an engineer-capable unit in the hex)" if purpose == "hedgehog" else ""
            )
            raise IllegalAction(
                f"{what[0].upper()}{what[1:]} gains one level per turn{extra}; {hex} has "
                f"{done} this turn, {action.levels} more is too many.",
                rule=RULE,
            )
        per_level = (
            CLOSE_TERRAIN_AIRBASE
            if purpose == "airbase" and action.close_terrain
            else SPECIAL_COSTS[purpose]
        )
        cost = per_level * action.levels
        subject = f"{'Hedgehog' if purpose == 'hedgehog' else 'Air base'} {hex}"
        result = f"+{action.levels} level" + ("s" if action.levels > 1 else "")
        notes.append(
            Step(
                rule=RULE,
                text=f"{subject}: {counted(action.levels, 'level')} at "
                f"{format_tokens(per_level)} each = {format_tokens(cost)}",
            )
        )
    source = supply_source(
        state, action.side, action.dump, action.hq, action.draw_mp, action.throw_mp
    )
    held = source.available(state)
    if cost > held:
        raise IllegalAction(
            f"It costs {format_tokens(cost)}; {source.where} "
            f"{'holds' if len(source.dumps) == 1 else 'hold'} {format_tokens(held)}.",
            rule=RULE,
        )
    new_state = source.spend(state, cost)
    if purpose in ("airbase", "hedgehog"):
        record = (action.side, purpose, hex, state.turn, action.levels)
        new_state = new_state.model_copy(update={"built": (*state.built, record)})
    steps = (*source.steps, *notes)
    facts = ((subject, result), ("Dump", f"-{format_tokens(cost)}"))
    return OcsOutcome(state=new_state, steps=steps, facts=facts)


__all__ = ["CLOSE_TERRAIN_AIRBASE", "SPECIAL_COSTS", "resolve_special"]
