"""What a declaration uses over the phase and Player Turn: SW MGs per possessor, forfeited
Inherent FP, SMC who fire or use any SW (A9.11, A9.12). No dice; a refusal changes nothing.

:func:`mg_usage` checks and returns a :class:`Usage`;
:func:`~rules_core.asl.fire.apply.record_usage` writes it into the state once the attack is
resolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules_core.asl.state import AslState, Unit, Weapon
from rules_core.asl.turn import adjacent, need_range
from rules_core.errors import IllegalAction

MG_CAPACITY: dict[str, int] = {"squad": 2, "half_squad": 1, "crew": 1, "leader": 1, "hero": 1}
"""A9.11/A9.12: SW MGs one unit may fire in one attack."""

Note = tuple[str, str]
"""(rule, text): a line about the declaration, shown before the dice."""


@dataclass(frozen=True)
class Usage:
    """What a declaration uses, recorded in the state once it is resolved (A9.11, A9.12, A8)."""

    inherent: tuple[str, ...] = ()
    """Units attacking with their Inherent FP."""
    mgs: tuple[tuple[str, str], ...] = ()
    """(possessor, SW MG) pairs fired."""
    forfeits: tuple[str, ...] = ()
    """A9.11: units whose Inherent FP is forfeited for the rest of the Player Turn."""
    sw_users: tuple[str, ...] = ()
    """A9.12: SMC who fired a SW (no leadership DRM this phase)."""
    leader: str | None = None
    """The leader directing the attack."""
    notes: tuple[Note, ...] = ()
    """(rule, text) lines about the declaration, shown before the dice."""


def _squad(owner: Unit, fired: list[str], before: str) -> tuple[bool, list[Note]]:
    """A9.11: a squad fires two SW MGs at most, the second at the cost of its Inherent FP."""
    if len(fired) > 2:
        raise IllegalAction(
            f"{owner.name} may fire at most two SW MGs in a phase{before}.", rule="A9.11"
        )
    if len(fired) == 2 and not owner.forfeit:
        if owner.fired:
            raise IllegalAction(
                f"{owner.name} has fired its Inherent FP this phase, so it may not fire "
                "a second SW MG in it (that costs its Inherent FP for this phase).",
                rule="A9.11",
            )
        note = (
            "A9.11",
            f"{owner.name} fires two SW MGs: its Inherent FP is forfeited for this "
            "and the remaining fire phases of the Player Turn",
        )
        return True, [note]
    return False, []


def _other_mmc(owner: Unit, names: list[str], fired: list[str], before: str) -> list[Note]:
    """A9.11: any other MMC fires one SW MG, instead of its Inherent FP, which it forfeits."""
    if len(fired) > 1:
        raise IllegalAction(f"{owner.name} may fire only one SW MG{before}.", rule="A9.11")
    if owner.fired:
        raise IllegalAction(
            f"{owner.name} has fired its Inherent FP this phase; a "
            f"{owner.kind.replace('_', '-')} fires a SW MG only instead of it.",
            rule="A9.11",
        )
    if owner.forfeit:
        return []
    return [
        (
            "A9.11",
            f"{owner.name} fires {names[0]}: its Inherent FP is forfeited for the "
            "remaining fire phases of the Player Turn",
        )
    ]


def _smc(
    owner: Unit,
    names: list[str],
    fired: list[str],
    before: str,
    leader: Unit | None,
    helper: Unit | None,
) -> tuple[list[str], list[Note]]:
    """A9.12: an SMC fires one SW MG and loses his leadership DRM that phase; a second SMC
    helps him fire it at full FP."""
    if len(fired) > 1:
        raise IllegalAction(f"{owner.name} may fire only one SW MG{before}.", rule="A9.12")
    _check_smc_free(owner, leader)
    users = [owner.name]
    notes: list[Note] = []
    if helper is not None:
        users.append(helper.name)
        notes.append(("A9.12", f"{owner.name} and {helper.name} fire {names[0]} at full FP"))
    elif owner.kind == "leader":
        notes.append(
            (
                "A9.12",
                f"{owner.name} fires {names[0]} alone: Area Fire (FP halved), no "
                "leadership DRM this phase; the MG is exempt from Cowering",
            )
        )
    return users, notes


def _check_smc_free(owner: Unit, leader: Unit | None) -> None:
    """A9.12: a leader who fires or uses a SW loses his leadership DRM that phase, so one who
    directs fire this phase (or this attack) does not use a SW in it."""
    if owner.directed or (leader is not None and leader.name == owner.name):
        raise IllegalAction(
            f"{owner.name} directs fire this phase; a leader who fires or uses a SW loses his "
            "leadership DRM for that phase.",
            rule="A9.12",
        )


def _inherent(
    unit: Unit,
    forfeits: Sequence[str],
    per_owner: dict[str, list[str]],
    phase: str,
    range_: int | None,
) -> Note | None:
    """A unit firing its Inherent FP has any (A9.12) and has not forfeited it (A9.11), save a
    squad's halved Final Fire at an ADJACENT unit (A7.353); returns that note."""
    if unit.kind == "leader":
        raise IllegalAction(
            f"{unit.name} is a leader and has no Inherent FP; name him as leader to direct "
            "the attack.",
            rule="A9.12",
        )
    if not (unit.forfeit or unit.name in forfeits):
        return None
    if unit.kind == "squad" and phase == "dfph":
        need_range(range_, f"{unit.name}'s forfeited Inherent FP (A7.353)")
        if adjacent(range_):
            return (
                "A7.353",
                f"{unit.name} fires its forfeited Inherent FP halved at an ADJACENT "
                "unit in Final Fire",
            )
    mgs = ", ".join(unit.mgs) or ", ".join(n for o, n in _pairs(per_owner) if o == unit.name)
    what = mgs or "SW MGs earlier this Player Turn"
    raise IllegalAction(
        f"{unit.name} fired {what} and so forfeits its Inherent FP for the "
        "remaining fire phases of this Player Turn.",
        rule="A9.11",
    )


def mg_usage(
    state: AslState,
    weapons: Sequence[Weapon],
    inherent: Sequence[Unit],
    *,
    phase: str,
    range_: int | None,
    helper: Unit | None,
    leader: Unit | None,
) -> Usage:
    """A9.11/A9.12 over the whole phase and Player Turn: how many SW MGs each possessor fires
    and what that costs (Inherent FP, leadership DRM: an SMC firing or using any SW loses it);
    leaders have no Inherent FP.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> mg_usage(st, [st.weapon("HMG")], [st.unit("A")], phase="pfph", range_=None,
    ...          helper=None, leader=None).mgs
    (('A', 'HMG'),)
    """
    notes: list[Note] = []
    per_owner: dict[str, list[str]] = {}
    for weapon in weapons:
        if weapon.kind == "sw_mg" and weapon.possessor is not None:
            per_owner.setdefault(weapon.possessor, []).append(weapon.name)
    forfeits: list[str] = []
    sw_users: list[str] = []
    for owner_name, names in per_owner.items():
        owner = state.unit(owner_name)
        assert owner is not None
        fired = list(dict.fromkeys((*owner.mgs, *names)))
        earlier = [n for n in owner.mgs if n not in names]
        before = f" (it fired {', '.join(earlier)} earlier this phase)" if earlier else ""
        if owner.kind == "squad":
            forfeit, more = _squad(owner, fired, before)
            forfeits += [owner.name] if forfeit else []
        elif owner.is_mmc:
            more = _other_mmc(owner, names, fired, before)
            forfeits += [owner.name] if more else []
        else:
            users, more = _smc(owner, names, fired, before, leader, helper)
            sw_users += users
        notes += more
    for weapon in weapons:  # A9.12: a leader who uses any other SW loses his leadership too
        owner = state.unit(weapon.possessor or "")
        if weapon.is_sw and weapon.kind != "sw_mg" and owner is not None and owner.is_smc:
            _check_smc_free(owner, leader)
            sw_users.append(owner.name)
            if owner.kind == "leader":
                notes.append(
                    ("A9.12", f"{owner.name} uses {weapon.name}: no leadership DRM this phase")
                )
    if helper is not None:
        owners = [state.unit(n) for n in per_owner]
        if not any(o is not None and o.is_smc for o in owners):
            raise IllegalAction(
                "helper is the second SMC firing a MG possessed by an SMC; no firing MG is.",
                rule="A9.12",
            )
    for unit in inherent:
        note = _inherent(unit, forfeits, per_owner, phase, range_)
        if note is not None:
            notes.append(note)
    return Usage(
        inherent=tuple(u.name for u in inherent),
        mgs=tuple(_pairs(per_owner)),
        forfeits=tuple(forfeits),
        sw_users=tuple(sw_users),
        leader=leader.name if leader is not None else None,
        notes=tuple(notes),
    )


def _pairs(per_owner: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(owner, name) for owner, names in per_owner.items() for name in names]


__all__ = ["MG_CAPACITY", "Note", "Usage", "mg_usage"]
