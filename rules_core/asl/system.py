"""The ASL game system: A9 MG/SW malfunction and the FB16 Axis Ammunition Shortage.

>>> state = SYSTEM.new_state(["Axis", "Allied"], {"fb_atmm_level4_drm": 2})
>>> [(s.name, s.nationality, s.axis) for s in state.sides]
[('Axis', 'German', True), ('Allied', 'Russian', False)]
>>> state.config.fb_atmm_level4_drm
2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from rules_core.asl.actions import (
    ACTION_TYPES,
    AddUnit,
    AddWeapon,
    AslAction,
    AslActionField,
    Check,
    DestroyWeapon,
    Dismantle,
    Fire,
    ListWeapons,
    RandomDestruction,
    RemoveWeapon,
    Repair,
    SetLevel,
    SetPhase,
    SetSan,
    SetUnit,
    ToHit,
)
from rules_core.asl.checks import resolve_check
from rules_core.asl.fb16 import is_axis_nationality
from rules_core.asl.fire import fire_odds, firing_side, resolve_fire
from rules_core.asl.forces import forces as asl_forces
from rules_core.asl.preview import fire_preview, preview_fields
from rules_core.asl.repair import resolve_repair
from rules_core.asl.setup import (
    add_unit,
    add_weapon,
    list_weapons,
    remove_weapon,
    set_level,
    set_phase,
    set_san,
    set_unit,
)
from rules_core.asl.sniper import sniper_notes
from rules_core.asl.state import PHASE_NAMES, AslConfig, AslState, Side, Unit, Weapon
from rules_core.asl.tohit import resolve_tohit
from rules_core.asl.weapons import destroy_weapon, dismantle, random_destruction
from rules_core.dice import Dice, Roll
from rules_core.errors import InvalidInput
from rules_core.outcome import Fact, Outcome, Step
from rules_core.roll_categories import notes as category_notes
from rules_core.system import GameSystem

DEFAULT_NATIONALITY: dict[str, str] = {
    "axis": "German",
    "allied": "Russian",
    "allies": "Russian",
    "soviet": "Russian",
}
"""Nationality of a side named generically (Festung Budapest: German Axis, Russian Allies)."""


def side_nationality(name: str) -> str:
    """The nationality a side name implies: a nationality itself, or the FB default (FB16.1).

    >>> side_nationality("Hungarian"), side_nationality("Axis"), side_nationality("Soviet")
    ('Hungarian', 'German', 'Russian')
    """
    return DEFAULT_NATIONALITY.get(name.strip().lower(), name.strip())


_Named = TypeVar("_Named", Unit, Weapon)


def _known(thing: _Named | None, name: str, what: str) -> _Named:
    """The unit or weapon an action names; an unknown name is refused before any proposal is
    logged for it (bad input changes nothing)."""
    if thing is None:
        raise InvalidInput(f"There is no {what} called {name!r} in this game.")
    return thing


def _declared_side(state: AslState, action: AddUnit | AddWeapon) -> str:
    side = state.side(action.side)
    if side is None:
        names = ", ".join(s.name for s in state.sides)
        raise InvalidInput(f"There is no side called {action.side!r}; the sides are {names}.")
    return side.name


def _fire_side(state: AslState, action: Fire) -> str | None:
    for name in action.weapons:
        _known(state.weapon(name), name, "weapon")
    for name in action.units:
        _known(state.unit(name), name, "unit")
    return firing_side(state, action)


def _weapon_side(state: AslState, name: str) -> str:
    return _known(state.weapon(name), name, "weapon").side


def _unit_side(state: AslState, name: str) -> str:
    return _known(state.unit(name), name, "unit").side


def _destruction_side(state: AslState, action: RandomDestruction) -> str | None:
    sides = {_weapon_side(state, n) for n in action.weapons}
    return sides.pop() if len(sides) == 1 else None


_ACTING: dict[type[Any], Callable[[AslState, Any], str | None]] = {
    AddUnit: _declared_side,
    AddWeapon: _declared_side,
    Fire: _fire_side,
    ToHit: lambda state, action: _weapon_side(state, action.gun),
    Repair: lambda state, action: _weapon_side(state, action.weapon),
    RemoveWeapon: lambda state, action: _weapon_side(state, action.name),
    Check: lambda state, action: _unit_side(state, action.unit),
    SetUnit: lambda state, action: _unit_side(state, action.name),
    DestroyWeapon: lambda state, action: _weapon_side(state, action.name),
    Dismantle: lambda state, action: _weapon_side(state, action.name),
    RandomDestruction: _destruction_side,
}
"""Each action's declared side (:meth:`AslSystem.acting_side`), by the action's model: a look-up
instead of a chain of ``isinstance`` (each a few hundred nanoseconds on a pydantic model when it
fails); the actions not listed declare none."""

_RESOLVERS: dict[type[Any], Callable[[AslState, Any, Dice], Outcome[AslState]]] = {
    SetLevel: lambda state, action, dice: set_level(state, action),
    SetSan: lambda state, action, dice: set_san(state, action),
    AddUnit: lambda state, action, dice: add_unit(state, action),
    AddWeapon: lambda state, action, dice: add_weapon(state, action),
    ListWeapons: lambda state, action, dice: list_weapons(state, action),
    RemoveWeapon: lambda state, action, dice: remove_weapon(state, action),
    Fire: resolve_fire,
    ToHit: resolve_tohit,
    Repair: resolve_repair,
    Check: resolve_check,
    SetPhase: lambda state, action, dice: set_phase(state, action),
    SetUnit: lambda state, action, dice: set_unit(state, action),
    DestroyWeapon: lambda state, action, dice: destroy_weapon(state, action),
    Dismantle: lambda state, action, dice: dismantle(state, action),
    RandomDestruction: random_destruction,
}
"""Each action's resolution (:meth:`AslSystem.resolve`), by the action's model."""


class AslSystem(GameSystem[AslState, AslAction]):
    """Advanced Squad Leader: A9 and FB16."""

    name = "asl"
    title = "Advanced Squad Leader"
    rules_version: ClassVar[int] = 5
    """5: ``fpf:true`` on a MG not marked First or Final Fire is refused (4 ruled it Sustained
    Fire); a dismantled German HMG/MMG fires as a LMG with no Multiple ROF and no To Kill attack (4
    used the HMG's ROF and Normal Range); ``/asl tohit range:`` on a Gun is refused (4 read nothing
    of it); a leader's new counter cites A1, not A19.13. 4: a Random SW destruction dr (A9.74) only
    in a fire phase, its OVR −1 only in the MPh (3 rolled it in any phase); a Fire Lane's Residual
    attack after a Fire Group with its manning squad (3 refused it as the squad's Subsequent First
    Fire); no MG To Hit DR beyond 16 hexes (A9.4; 3 rolled one). 3: Fire Lanes, SMC and any SW, MG
    To Kill, phase gates of checks, markers, options that cannot apply, Spraying Fire and long
    range, fractional MF, stated terrain, the directing leader's DRM in the Final DR, SANs (2: a
    unit holding weapons keeps its side on ``/asl unit add update:true``; 1 let it change, leaving
    its weapons held across sides)."""
    state_type = AslState
    action_types = ACTION_TYPES
    action_adapter: TypeAdapter[AslAction] = TypeAdapter(AslActionField)

    _acting: tuple[object, object, str | None] = (None, None, None)
    """The last (state, action, side) :meth:`acting_side` answered, set on the instance: the
    permission check asks it, then the service again for the log's entry, of the very same frozen
    state and action (the three held together, so no other object takes their ids)."""

    def new_state(self, sides: Sequence[str], options: Mapping[str, Any]) -> AslState:
        """A fresh state; ``options``: the flags and ``nationalities`` {side: nationality}.

        FB16.1: a side is Axis by its nationality; levels start at 0 (set by SSR with
        ``/asl level``).

        >>> st = SYSTEM.new_state(["Hungarian", "Soviet"], {"repair_drm": 1})
        >>> [(s.nationality, s.axis, s.level) for s in st.sides], st.config.repair_drm
        ([('Hungarian', True, 0), ('Russian', False, 0)], 1)
        """
        options = dict(options)
        nationalities = dict(options.pop("nationalities", {}) or {})
        if not sides:
            raise InvalidInput("A game needs at least one side.")
        if len({s.strip().lower() for s in sides}) != len(sides):
            raise InvalidInput("Side names must differ.")
        try:
            config = AslConfig(**options)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error.get("loc", ()))
            raise InvalidInput(f"{where}: {error.get('msg', 'invalid value')}.") from exc
        built = []
        for name in sides:
            nationality = str(nationalities.get(name, side_nationality(name)))
            built.append(
                Side(
                    name=name.strip(),
                    nationality=nationality,
                    axis=is_axis_nationality(nationality),
                )
            )
        return AslState(sides=tuple(built), config=config)

    def acting_side(self, state: AslState, action: AslAction) -> str | None:
        """The side the action is declared for; ``None`` for scenario setup and listings.

        A firer's side (A7.5 Fire Group), a weapon's possessor (A9.72), a checking unit's.

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> SYSTEM.acting_side(fb16_fire_group(), Repair(weapon="LMG"))
        'Axis'
        """
        memo = self._acting
        if memo[0] is state and memo[1] is action:
            return memo[2]
        find = _ACTING.get(type(action)) or next(
            (f for kind, f in _ACTING.items() if isinstance(action, kind)), None
        )
        side = find(state, action) if find is not None else None
        self._acting = (state, action, side)
        return side

    def resolve(self, state: AslState, action: AslAction, dice: Dice) -> Outcome[AslState]:
        """Validate and resolve one ASL action (A9, FB16; refusals cite their rule, no die rolled).

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> from rules_core.dice import ScriptedDice
        >>> SYSTEM.resolve(fb16_fire_group(), Fire(weapons=("LMG",)), ScriptedDice([5, 6])).facts
        (('LMG', 'malfunctioned'), ('Residual FP (LMG)', 'none'))
        """
        resolver = _RESOLVERS.get(type(action)) or next(
            (r for kind, r in _RESOLVERS.items() if isinstance(action, kind)), None
        )
        if resolver is not None:
            return resolver(state, action, dice)
        raise InvalidInput(f"Unknown ASL action {action!r}.")  # pragma: no cover

    def names(self, state: AslState, kind: str) -> list[str]:
        """Names for autocomplete: ``side``, ``unit`` or ``weapon`` (in A.9 stack order).

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> SYSTEM.names(fb16_fire_group(), "weapon")
        ['HMG', 'LMG']
        """
        if kind == "side":
            return [s.name for s in state.sides]
        if kind == "unit":
            return [u.name for u in state.units]
        if kind == "weapon":
            return [w.name for w in state.weapons]
        return []

    def owner_side(
        self, state: AslState, kind: str, name: str, acting: str | None = None
    ) -> str | None:
        """The side of a named side, unit or weapon now (A9.72: a weapon's possessing side).

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> SYSTEM.owner_side(fb16_fire_group(), "weapon", "lmg")
        'Axis'
        """
        if kind == "side":
            side = state.side(name.strip())
            return side.name if side else None
        if kind == "unit":
            unit = state.unit(name)
            return unit.side if unit else None
        if kind == "weapon":
            weapon = state.weapon(name)
            return weapon.side if weapon else None
        return super().owner_side(state, kind, name, acting)

    def turn_side(self, state: AslState) -> str | None:
        """The phasing side (A3: the ATTACKER of the current Player Turn), once a phase is set.

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> SYSTEM.turn_side(fb16_fire_group())
        'Axis'
        """
        return state.phase_side

    def forces(self, state: AslState) -> list[BaseModel]:
        """The game's current forces as set-up commands (see :mod:`rules_core.asl.forces`)."""
        return asl_forces(state)

    def next_to_act(self, state: AslState) -> str | None:
        """The side that acts in the current phase (A3): the DEFENDER in the Defensive Fire
        Phase, where only the DEFENDER fires (Final Fire); the ATTACKER in every other phase —
        he rallies and routs first, fires in the PFPh and AFPh, moves in the MPh (the DEFENDER's
        Defensive First Fire answers that movement) and his units start Close Combat.

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> state = fb16_fire_group()
        >>> final_fire = state.model_copy(update={"phase": "dfph"})
        >>> SYSTEM.next_to_act(state), SYSTEM.next_to_act(final_fire)
        ('Axis', 'Allied')
        """
        attacker = state.phase_side
        if state.phase != "dfph" or attacker is None:
            return attacker
        others = [s.name for s in state.sides if s.name != attacker]
        return others[0] if len(others) == 1 else attacker

    def summary(self, state: AslState) -> list[str]:
        """Lines for ``/game status``: levels (FB16.1), phase (A3), weapons (A9.7), broken units.

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> for line in SYSTEM.summary(fb16_fire_group()):
        ...     print(line)
        Axis: Ammunition Shortage level 4
        Allied: no Ammunition Shortage
        Phase: Prep Fire Phase of Axis (Player Turn 1)
        """
        lines = [
            (
                f"{s.name}: Ammunition Shortage level {s.level}"
                if s.level
                else f"{s.name}: no Ammunition Shortage"
            )
            + (f"; SAN {s.san}" if s.san else "")
            for s in state.sides
        ]
        if state.phase is not None:
            whose = f" of {state.phase_side}" if state.phase_side else ""
            lines.append(f"Phase: {PHASE_NAMES[state.phase]}{whose} (Player Turn {state.turn})")
        groups = (
            ("Malfunctioned", [w.name for w in state.weapons if w.status == "malfunctioned"]),
            ("Eliminated", [w.name for w in state.weapons if w.status == "eliminated"]),
            ("Disabled", [w.name for w in state.weapons if w.status == "disabled"]),
            ("Low Ammo", [w.name for w in state.weapons if w.low_ammo]),
            ("Broken", [u.name for u in state.units if u.broken]),
        )
        lines.extend(f"{label}: {', '.join(names)}" for label, names in groups if names)
        return lines

    def roll_notes(
        self, state: AslState, category: str, roll: Roll, held: Sequence[str]
    ) -> tuple[Step, ...]:
        """An Original DR's meaning by the rules (A7.9, A15.1, A10.31, C3.7) and the enemy Sniper
        it activates (A14.1), for a ``/roll`` of that category by a player holding ``held``.

        >>> from rules_core.asl.actions import SetSan
        >>> from rules_core.asl.examples import build_state
        >>> state = build_state([SetSan(side="Axis", san=2)])
        >>> two = Roll(label="MC DR", kind="DR", sides=6, faces=(1, 1))
        >>> [n.rule for n in SYSTEM.roll_notes(state, "MC", two, ["Allied"])]
        ['A15.1', 'A14.1']
        """
        return category_notes(category, roll) + sniper_notes(state, category, roll, held)

    def odds(self, state: AslState, action: AslAction) -> dict[tuple[Fact, ...], Fraction]:
        """Exact odds; IFT attacks use the fast exact enumeration of :func:`fire_odds`.

        A9.7, A9.71, FB16.2: e.g. a lone LMG at level 4 breaks on DR 10-12.

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> odds = SYSTEM.odds(fb16_fire_group(), Fire(weapons=("LMG",)))
        >>> sum(p for facts, p in odds.items() if ("LMG", "fine") not in facts)
        Fraction(1, 6)
        """
        if isinstance(action, Fire):
            return fire_odds(state, action)
        return super().odds(state, action)

    def preview_fields(
        self, state: AslState, action: AslAction
    ) -> tuple[tuple[str, str], ...] | None:
        """An IFT attack's preview: each weapon's and unit's odds, the chance that nothing bad
        happens and the likeliest whole results, without listing them all (A9.71, FB16.2).

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> fields = SYSTEM.preview_fields(fb16_fire_group(), Fire(weapons=("HMG", "LMG")))
        >>> [name for name, _ in fields]
        ['Each weapon and unit', 'Nothing bad happens', 'Most likely results']
        """
        if isinstance(action, Fire):
            return preview_fields(fire_preview(state, action))
        return None

    def brute_force_odds(
        self, state: AslState, action: AslAction
    ) -> dict[tuple[Fact, ...], Fraction]:
        """The default enumeration of every dice sequence (the reference for :meth:`odds`).

        A9.72 at FB level 4 (FB16.33): R2 repairs on 1-2, eliminates on 5-6.

        >>> from rules_core.asl.examples import fb16_fire_group
        >>> st = fb16_fire_group()
        >>> lmg = st.weapon("LMG").model_copy(update={"status": "malfunctioned"})
        >>> st = st.with_weapons({"LMG": lmg}).model_copy(update={"phase": "rph"})
        >>> sorted(SYSTEM.brute_force_odds(st, Repair(weapon="LMG")).values())
        [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
        """
        return super().odds(state, action)


SYSTEM = AslSystem()

__all__ = ["SYSTEM", "AslSystem", "side_nationality"]
