"""The Civil War Battles game system: the entry point the application talks to.

>>> from rules_core.dice import ScriptedDice
>>> system = CwbSystem()
>>> state = system.new_state(["Union", "Confederate"], {"cwb_ammo_loss_pct": 4})
>>> state = system.run(state, UnitAdd(name="1st Minnesota", side="Union", men=262),
...                    ScriptedDice([])).state
>>> outcome = system.run(state, Fire(unit="1st Minnesota", mode="offensive"), ScriptedDice([4]))
>>> outcome.fact("1st Minnesota")
'Low On Ammo'
>>> system.odds(state, Fire(unit="1st Minnesota", mode="offensive"))[
...     (("ammo loss", "yes"), ("1st Minnesota", "Low On Ammo"))]
Fraction(1, 25)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from rules_core.cwb.actions import (
    ACTION_TYPES,
    CwbAction,
    CwbActionField,
    Fire,
    Isolation,
    Map,
    Melee,
    Params,
    Resupply,
    Supply,
    Turn,
    UnitAdd,
    UnitList,
    UnitRemove,
    UnitSet,
    WagonAdd,
    WagonSet,
)
from rules_core.cwb.ammunition import fire, fire_odds
from rules_core.cwb.forces import forces as cwb_forces
from rules_core.cwb.isolation import isolation_test, melee, set_isolation
from rules_core.cwb.scenario import (
    add_unit,
    add_wagon,
    list_units,
    new_game,
    remove_unit,
    set_map,
    set_params,
    set_unit,
    set_wagon,
)
from rules_core.cwb.state import CwbState
from rules_core.cwb.summary import table_summary
from rules_core.cwb.supply_wagons import resupply, resupply_side
from rules_core.dice import Dice
from rules_core.errors import InvalidInput
from rules_core.outcome import Fact, Outcome
from rules_core.system import GameSystem

NAME_KINDS: tuple[str, ...] = ("side", "unit", "wagon")


class CwbSystem(GameSystem[CwbState, CwbAction]):
    """HPS Civil War Battles: ammunition, Supply Wagons and Isolation."""

    name = "cwb"
    title = "Civil War Battles"
    rules_version: ClassVar[int] = 5
    """5: /cwb params refuses a side given with the game's wagon rounding or ammo-loss types (4
    set them for the whole game, saying nothing of the side). 4: a battery of a side that does
    not use the Isolation Effects Optional Rule fires at its side's artillery Ammo Level whatever
    its own, and a battery's own Low or Out is refused there (3 applied its own level, "under
    the Isolation rule", with the rule off). 3: a params command says
    the values it set, once for all the sides it sets (2 wrote each side's whole Parameter Data, so
    a scenario's set-up repeated a side's), and the map and paths count hexes in English ("1 Blocked
    hex": 2 wrote "hex(es)"; a unit of one man "1 man", not "1 men"). 2: a battery's fire names the
    level it fired at and where it came from (its side's artillery Ammo Level, or its own under the
    Isolation rule): 1 gave the battery's own level, "Normal" for a battery firing at its side's Low
    level."""
    state_type = CwbState
    action_types: tuple[type[BaseModel], ...] = ACTION_TYPES
    action_adapter: TypeAdapter[CwbAction] = TypeAdapter(CwbActionField)

    def new_state(self, sides: Sequence[str], options: Mapping[str, Any]) -> CwbState:
        """A fresh game with the option flags (:func:`rules_core.cwb.scenario.new_game`).

        >>> CwbSystem().new_state(["Union"], {"cwb_wagon_rounding": "floor"}).wagon_rounding
        'floor'
        """
        return new_game(sides, options)

    def acting_side(self, state: CwbState, action: CwbAction) -> str | None:
        """The side whose player declares the action, or ``None`` when any player may (CWB Supply).

        >>> state = CwbSystem().new_state(["Union", "Confederate"], {})
        >>> CwbSystem().acting_side(state, WagonAdd(name="W", side="confederate", strength=3))
        'Confederate'
        """
        try:
            if isinstance(action, UnitAdd | WagonAdd | Turn | Supply):
                return state.side(action.side).name
            if isinstance(action, Params):
                return state.side(action.side).name if action.side is not None else None
            if isinstance(action, UnitSet | UnitRemove):
                return state.unit(action.name).side
            if isinstance(action, WagonSet):
                return state.wagon(action.name).side
            if isinstance(action, Fire | Resupply | Isolation):
                return state.unit(action.unit).side
        except InvalidInput:
            return None  # resolve() refuses it with the same message
        return None

    def resolve(self, state: CwbState, action: CwbAction, dice: Dice) -> Outcome[CwbState]:
        """Validate and resolve one `/cwb` action; refusals come before any die (CWB Supply).

        >>> from rules_core.dice import ScriptedDice
        >>> s = CwbSystem().new_state(["Union"], {})
        >>> CwbSystem().resolve(s, WagonAdd(name="W", side="Union", strength=9),
        ...                     ScriptedDice([])).state.wagons[0].strength
        9
        """
        if isinstance(action, Fire):
            return fire(state, action.unit, action.mode, dice)
        if isinstance(action, Resupply):
            return resupply(state, action.unit, action.wagon, action.path, action.routed)
        if isinstance(action, Supply):
            return resupply_side(state, action.side)
        if isinstance(action, Isolation):
            return set_isolation(state, action.unit, action.isolated)
        if isinstance(action, Turn):
            return isolation_test(state, action.side)
        if isinstance(action, Melee):
            return melee(state, action.unit, action.strength)
        if isinstance(action, Params):
            return set_params(state, action)
        if isinstance(action, UnitAdd):
            return add_unit(state, action)
        if isinstance(action, UnitSet):
            return set_unit(state, action)
        if isinstance(action, UnitRemove):
            return remove_unit(state, action)
        if isinstance(action, UnitList):
            return list_units(state, action)
        if isinstance(action, WagonAdd):
            return add_wagon(state, action)
        if isinstance(action, WagonSet):
            return set_wagon(state, action)
        if isinstance(action, Map):
            return set_map(state, action)
        raise InvalidInput(f"Unknown Civil War Battles action {action!r}.")

    def names(self, state: CwbState, kind: str) -> list[str]:
        """Names for autocomplete: ``"side"``, ``"unit"`` or ``"wagon"`` (CWB Supply).

        >>> CwbSystem().names(CwbSystem().new_state(["Union", "Confederate"], {}), "side")
        ['Union', 'Confederate']
        """
        if kind == "side":
            return [s.name for s in state.sides]
        if kind == "unit":
            return [u.name for u in state.units]
        if kind == "wagon":
            return [w.name for w in state.wagons]
        return []

    def owner_side(
        self, state: CwbState, kind: str, name: str, acting: str | None = None
    ) -> str | None:
        """The side of a named side, unit or Supply Wagon now (brief §4.6), or ``None``.

        >>> s = CwbSystem().new_state(["Union", "Confederate"], {})
        >>> CwbSystem().owner_side(s, "side", "union"), CwbSystem().owner_side(s, "wagon", "W")
        ('Union', None)
        """
        try:
            if kind == "unit":
                return state.unit(name).side
            if kind == "wagon":
                return state.wagon(name).side
        except InvalidInput:
            return None
        return super().owner_side(state, kind, name, acting)

    def forces(self, state: CwbState) -> list[BaseModel]:
        """The game's current forces as set-up commands (see :mod:`rules_core.cwb.forces`)."""
        return cwb_forces(state)

    def summary(self, state: CwbState) -> list[str]:
        """``/game status``: ammo-loss percent, Low/Out/Isolated/Routed units, wagons per side.

        >>> CwbSystem().summary(CwbSystem().new_state(["Union"], {"cwb_ammo_loss_pct": 4}))
        ['Union: ammo loss 4 %', 'Union wagons: none']
        """
        return table_summary(state)

    def odds(self, state: CwbState, action: CwbAction) -> dict[tuple[Fact, ...], Fraction]:
        """Exact odds: d(100) ≤ p has p/100; a fire reads two resolutions, not 100.

        >>> from rules_core.dice import ScriptedDice
        >>> s = CwbSystem().new_state(["Union"], {"cwb_ammo_loss_pct": 10})
        >>> s = CwbSystem().run(s, UnitAdd(name="A", side="Union", men=90), ScriptedDice([])).state
        >>> sorted(CwbSystem().odds(s, Fire(unit="A", mode="defensive")).values())
        [Fraction(1, 10), Fraction(9, 10)]
        """
        if isinstance(action, Fire):
            return fire_odds(state, action.unit, action.mode)
        return super().odds(state, action)


__all__ = ["NAME_KINDS", "CwbSystem"]
