"""Scenario set-up: Parameter Data, units, Supply Wagons, the map — and the game's option flags.

Nothing here rolls a die; every change is still an action so the game's log holds it.

>>> state = new_game(["Union", "Confederate"], {"cwb_ammo_loss_pct": {"Union": 4}})
>>> [(s.name, s.ammo_loss_pct) for s in state.sides]
[('Union', 4), ('Confederate', None)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from rules_core.cwb.actions import (
    Map,
    Params,
    UnitAdd,
    UnitList,
    UnitRemove,
    UnitSet,
    WagonAdd,
    WagonSet,
)
from rules_core.cwb.ammunition import ammo_text, morale_text
from rules_core.cwb.hexgrid import format_hex, on_map, parse_hex
from rules_core.cwb.isolation import melee_defence_multiplier
from rules_core.cwb.state import (
    UNIT_TYPES,
    Ammo,
    CwbOutcome,
    CwbState,
    Hex,
    HexMap,
    SideData,
    Unit,
    UnitType,
    Wagon,
    WagonRounding,
)
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step
from rules_core.words import counted

OPTION_NAMES: tuple[str, ...] = (
    "cwb_ammo_loss_pct",
    "cwb_wagon_rounding",
    "cwb_ammo_loss_types",
    "cwb_isolation",
    "cwb_isolated_artillery_own_ammo",
    "cwb_isolation_avoids_enemy_units",
)
"""The game options :func:`new_game` reads (docs/rules/CWB.md lists them)."""


def _percent(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise InvalidInput(f"{what} must be a whole percent from 0 to 100, not {value!r}.")
    return value


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false, not {value!r}.")
    return value


def _rounding(value: object) -> WagonRounding:
    for choice in get_args(WagonRounding):
        if value == choice:
            rounding: WagonRounding = choice
            return rounding
    raise InvalidInput(f"cwb_wagon_rounding must be ceil, round or floor, not {value!r}.")


def unit_types(names: Sequence[str]) -> tuple[UnitType, ...]:
    """Unit types from their names, for ``cwb_ammo_loss_types`` (CWB Supply).

    >>> unit_types(["Infantry", "cavalry"])
    ('infantry', 'cavalry')
    """
    found: list[UnitType] = []
    for name in names:
        for unit_type in UNIT_TYPES:
            if name.strip().casefold() == unit_type:
                if unit_type not in found:
                    found.append(unit_type)
                break
        else:
            raise InvalidInput(f"{name!r} is not a unit type; choose from {', '.join(UNIT_TYPES)}.")
    return tuple(found)


def new_game(sides: Sequence[str], options: Mapping[str, Any]) -> CwbState:
    """A fresh game for ``sides`` with the option flags from ``options`` (defaults otherwise).

    ``cwb_ammo_loss_pct`` is one percent for every side or a mapping side → percent;
    left out, it is entered later with ``/cwb params``.

    >>> new_game(["Union", "Confederate"], {"cwb_ammo_loss_pct": 4}).sides[1].ammo_loss_pct
    4
    >>> new_game(["Union"], {"cwb_wagon_rounding": "half"})
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: cwb_wagon_rounding must be ceil, round or floor, not 'half'.
    """
    names = [s.strip() for s in sides]
    if not names or any(not n for n in names):
        raise InvalidInput("A Civil War Battles game needs named sides, e.g. Union,Confederate.")
    if len({n.casefold() for n in names}) != len(names):
        raise InvalidInput("Two sides may not have the same name.")
    unknown = [key for key in options if key.startswith("cwb_") and key not in OPTION_NAMES]
    if unknown:
        raise InvalidInput(f"Unknown option {unknown[0]}; known: {', '.join(OPTION_NAMES)}.")
    pct = options.get("cwb_ammo_loss_pct")
    per_side: dict[str, int | None] = {n: None for n in names}
    if isinstance(pct, Mapping):
        for key, value in pct.items():
            match = [n for n in names if n.casefold() == str(key).casefold()]
            if not match:
                raise InvalidInput(f"cwb_ammo_loss_pct names {key!r}, which is not a side.")
            per_side[match[0]] = _percent(value, f"cwb_ammo_loss_pct for {key}")
    elif pct is not None:
        per_side = {n: _percent(pct, "cwb_ammo_loss_pct") for n in names}
    isolation = _flag(options.get("cwb_isolation", False), "cwb_isolation")
    state = CwbState(
        sides=tuple(
            SideData(name=n, ammo_loss_pct=per_side[n], isolation_rule=isolation) for n in names
        ),
        wagon_rounding=_rounding(options.get("cwb_wagon_rounding", "ceil")),
        isolated_artillery_own_ammo=_flag(
            options.get("cwb_isolated_artillery_own_ammo", True), "cwb_isolated_artillery_own_ammo"
        ),
        isolation_avoids_enemy_units=_flag(
            options.get("cwb_isolation_avoids_enemy_units", True),
            "cwb_isolation_avoids_enemy_units",
        ),
    )
    types = options.get("cwb_ammo_loss_types")
    if types is not None:
        if isinstance(types, str):
            types = types.split(",")
        state = state.model_copy(update={"ammo_loss_types": unit_types(list(types))})
    return state


def set_params(state: CwbState, action: Params) -> Outcome[CwbState]:
    """Enter the scenario's Parameter Data for one side or all (CWB Supply).

    >>> state = new_game(["Union", "Confederate"], {})
    >>> set_params(state, Params(ammo_loss=4, side="union")).state.sides[0].ammo_loss_pct
    4
    """
    targets = [state.side(action.side)] if action.side is not None else list(state.sides)
    if action.side is not None and (
        action.wagon_rounding is not None or action.ammo_loss_types is not None
    ):
        raise InvalidInput(
            "Wagon rounding and ammo-loss types are the whole game's, never one side's: give "
            "them without side: (per side: ammo-loss, artillery-ammo, isolation)."
        )
    changes: dict[str, Any] = {}
    if action.ammo_loss is not None:
        changes["ammo_loss_pct"] = _percent(action.ammo_loss, "ammo-loss")
    if action.artillery_ammo is not None:
        changes["artillery_ammo"] = action.artillery_ammo
    if action.isolation is not None:
        changes["isolation_rule"] = action.isolation
    game: dict[str, Any] = {}
    if action.wagon_rounding is not None:
        game["wagon_rounding"] = _rounding(action.wagon_rounding)
    if action.ammo_loss_types is not None:
        game["ammo_loss_types"] = unit_types(action.ammo_loss_types)
    if not changes and not game:
        raise InvalidInput("Give at least one Parameter Data value to set.")
    new_state = state
    for side in targets:
        new_state = new_state.with_side(side.model_copy(update=changes))
    new_state = new_state.model_copy(update=game)
    steps: list[Step] = []
    if changes:  # what this command set, once for all the sides it sets (a scenario may hold
        # several params lines: each says its own values, not every side's whole Parameter Data)
        names = ", ".join(side.name for side in targets)
        steps.append(Step(rule="CWB Supply", text=f"{names}: {_describe_set(changes)}"))
    if game:
        said = []
        if "wagon_rounding" in game:
            said.append(f"Wagon cost rounding: {new_state.wagon_rounding}")
        if "ammo_loss_types" in game:
            kinds = ", ".join(new_state.ammo_loss_types) or "no unit type"
            said.append(f"ammo-loss roll for: {kinds}")
        steps.append(Step(rule="CWB Supply", text="; ".join(said)))
    return CwbOutcome(state=new_state, steps=tuple(steps))


def _describe_set(changes: Mapping[str, Any]) -> str:
    """The side values a params command set, in the Parameter Data's words."""
    said = []
    if "ammo_loss_pct" in changes:
        said.append(f"ammo-loss chance {changes['ammo_loss_pct']}%")
    if "artillery_ammo" in changes:
        said.append(f"artillery Ammo Level {Ammo(changes['artillery_ammo']).label}")
    if "isolation_rule" in changes:
        rule = "in use" if changes["isolation_rule"] else "not in use"
        said.append(f"Isolation Effects Optional Rule {rule}")
    return "; ".join(said)


def _placed(state: CwbState, text: str | None) -> Hex | None:
    if text is None:
        return None
    hex_ = parse_hex(text)
    if state.map is not None and not on_map(hex_, state.map):
        raise InvalidInput(
            f"Hex {format_hex(hex_)} is off the map ({state.map.columns} columns × "
            f"{state.map.rows} rows, counted from 0)."
        )
    return hex_


def _check_new_name(state: CwbState, name: str, kind: str) -> str:
    name = name.strip()
    if not name:
        raise InvalidInput(f"A {kind} needs a name.")
    taken = [u.name for u in state.units] + [w.name for w in state.wagons]
    if any(t.casefold() == name.casefold() for t in taken):
        raise InvalidInput(f"There is already a unit or wagon called {name!r} in this game.")
    return name


def _check_battery_ammo(state: CwbState, unit: Unit) -> None:
    """A battery's own level below Normal is kept only under the Isolation Effects Optional Rule
    (CWB Supply: "The ability for Artillery units to fire is based on the Ammo Level for their
    side. If the Isolation Effects Optional Rule is being used, then Artillery units can also
    become Low or Out Of Ammo when Isolated")."""
    if unit.type != "artillery" or unit.ammo is Ammo.NORMAL:
        return
    if state.side(unit.side).isolation_rule and state.isolated_artillery_own_ammo:
        return
    raise IllegalAction(
        f"{unit.name} is a battery: it fires at {unit.side}'s artillery Ammo Level (/cwb params "
        "artillery-ammo:); a battery's own level is kept only under the Isolation Effects "
        "Optional Rule.",
        rule="CWB Supply",
    )


def add_unit(state: CwbState, action: UnitAdd) -> Outcome[CwbState]:
    """Add a unit to the game with its men and ammunition (CWB Supply).

    >>> state = new_game(["Union"], {})
    >>> add_unit(state, UnitAdd(name="A", side="Union", men=95)).state.unit("A").men
    95
    >>> add_unit(state, UnitAdd(name="A", side="CSA", men=95))
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: There is no side called 'CSA' in this game; sides: Union.
    """
    side = state.side(action.side)
    name = _check_new_name(state, action.name, "unit")
    if action.men < 1:
        raise InvalidInput(f"A unit needs at least 1 man, not {action.men}.")
    unit = Unit(
        name=name,
        side=side.name,
        type=action.type,
        men=action.men,
        ammo=action.ammo,
        hex=_placed(state, action.hex),
    )
    _check_battery_ammo(state, unit)
    return CwbOutcome(
        state=state.with_unit(unit),
        steps=(Step(rule="CWB Supply", text=f"Added {_describe_unit(state, unit)}"),),
    )


def set_unit(state: CwbState, action: UnitSet) -> Outcome[CwbState]:
    """Change a unit's men, ammunition, Routed flag or hex (CWB Supply).

    >>> from rules_core.cwb.state import Ammo
    >>> state = new_game(["Union"], {})
    >>> state = add_unit(state, UnitAdd(name="A", side="Union", men=10)).state
    >>> set_unit(state, UnitSet(name="a", ammo=Ammo.LOW)).state.unit("A").ammo.label
    'Low On Ammo'
    """
    unit = state.unit(action.name)
    changes: dict[str, Any] = {}
    if action.men is not None:
        if action.men < 1:
            raise InvalidInput(f"A unit needs at least 1 man, not {action.men}.")
        changes["men"] = action.men
    if action.ammo is not None:
        changes["ammo"] = action.ammo
    if action.routed is not None:
        changes["routed"] = action.routed
    if action.hex is not None:
        changes["hex"] = (
            None if action.hex.strip().casefold() == "none" else _placed(state, action.hex)
        )
    if not changes:
        raise InvalidInput("Give at least one thing to change: men, ammo, routed or hex.")
    new_unit = unit.model_copy(update=changes)
    if action.ammo is not None:
        _check_battery_ammo(state, new_unit)
    new_state = state.with_unit(new_unit)
    return CwbOutcome(
        state=new_state,
        steps=(Step(rule="CWB Supply", text=f"Now {_describe_unit(new_state, new_unit)}"),),
    )


def remove_unit(state: CwbState, action: UnitRemove) -> Outcome[CwbState]:
    """Remove a unit from the game (CWB Supply).

    >>> state = add_unit(new_game(["Union"], {}), UnitAdd(name="A", side="Union", men=10)).state
    >>> remove_unit(state, UnitRemove(name="A")).state.units
    ()
    """
    unit = state.unit(action.name)
    return CwbOutcome(
        state=state.without_unit(unit.name),
        steps=(Step(rule="CWB Supply", text=f"Removed {unit.name}"),),
    )


def _describe_unit(state: CwbState, unit: Unit) -> str:
    men = counted(unit.men, "man", "men")
    parts = [f"{unit.name} ({unit.side}, {unit.type}, {men}): {unit.ammo.label}"]
    if unit.type == "artillery":
        parts.append(f"fires at {ammo_text(state, unit)}")
    reminder = morale_text(state, unit)
    if reminder is not None:
        parts.append(reminder)
    if unit.routed:
        parts.append("Routed")
    if unit.isolated:
        parts.append(f"Isolated (Melee defence ×{melee_defence_multiplier(state, unit)})")
    if unit.hex is not None:
        parts.append(f"hex {format_hex(unit.hex)}")
    return "; ".join(parts)


def list_units(state: CwbState, action: UnitList) -> Outcome[CwbState]:
    """List units and wagons with their ammunition, morale reminder and flags (read only).

    >>> state = add_unit(new_game(["Union"], {}), UnitAdd(name="A", side="Union", men=10)).state
    >>> list_units(state, UnitList()).explanation()
    ['CWB Supply: A (Union, infantry, 10 men): Normal']
    """
    side = state.side(action.side).name if action.side is not None else None
    steps = [
        Step(rule="CWB Supply", text=_describe_unit(state, unit))
        for unit in state.units
        if side is None or unit.side == side
    ]
    for wagon in state.wagons:
        if side is None or wagon.side == side:
            where = "" if wagon.hex is None else f", hex {format_hex(wagon.hex)}"
            steps.append(
                Step(
                    rule="CWB Supply",
                    text=f"Wagon {wagon.name} ({wagon.side}): strength {wagon.strength}{where}",
                )
            )
    if not steps:
        steps.append(Step(rule="CWB Supply", text="No units or wagons yet"))
    facts = tuple(
        (u.name, ammo_text(state, u)) for u in state.units if side is None or u.side == side
    )
    return CwbOutcome(state=state, steps=tuple(steps), facts=facts)


def add_wagon(state: CwbState, action: WagonAdd) -> Outcome[CwbState]:
    """Add a Supply Wagon (CWB Supply: each strength point resupplies 10 men).

    >>> state = add_wagon(new_game(["Union"], {}), WagonAdd(name="W", side="Union", strength=5))
    >>> state.state.wagon("w").strength
    5
    """
    side = state.side(action.side)
    name = _check_new_name(state, action.name, "wagon")
    if action.strength < 1:
        raise InvalidInput(f"A Supply Wagon needs a strength of at least 1, not {action.strength}.")
    wagon = Wagon(
        name=name, side=side.name, strength=action.strength, hex=_placed(state, action.hex)
    )
    return CwbOutcome(
        state=state.with_wagon(wagon),
        steps=(
            Step(
                rule="CWB Supply",
                text=f"Added wagon {name} ({side.name}), strength {wagon.strength} "
                f"(enough for {wagon.strength * 10} men)",
            ),
        ),
    )


def set_wagon(state: CwbState, action: WagonSet) -> Outcome[CwbState]:
    """Move a Supply Wagon or correct its strength (CWB Supply).

    >>> state = add_wagon(new_game(["Union"], {}), WagonAdd(name="W", side="Union", strength=5))
    >>> set_wagon(state.state, WagonSet(name="W", hex="3,4")).state.wagon("W").hex
    (3, 4)
    """
    wagon = state.wagon(action.name)
    changes: dict[str, Any] = {}
    if action.strength is not None:
        if action.strength < 1:
            raise InvalidInput(
                f"A Supply Wagon needs a strength of at least 1, not {action.strength}."
            )
        changes["strength"] = action.strength
    if action.hex is not None:
        changes["hex"] = (
            None if action.hex.strip().casefold() == "none" else _placed(state, action.hex)
        )
    if not changes:
        raise InvalidInput("Give at least one thing to change: strength or hex.")
    new_wagon = wagon.model_copy(update=changes)
    where = "" if new_wagon.hex is None else f", hex {format_hex(new_wagon.hex)}"
    return CwbOutcome(
        state=state.with_wagon(new_wagon),
        steps=(
            Step(
                rule="CWB Supply",
                text=f"Wagon {wagon.name}: strength {new_wagon.strength}{where}",
            ),
        ),
    )


def set_map(state: CwbState, action: Map) -> Outcome[CwbState]:
    """Register the map: size, hex layout, Blocked hexes and Supply Sources (CWB Isolated Units).

    >>> state = set_map(new_game(["Union"], {}), Map(columns=10, rows=8, blocked=("3/4",))).state
    >>> state.map.blocked
    ((3, 4),)
    """
    hex_map = HexMap(columns=action.columns, rows=action.rows, layout=action.layout)
    blocked = tuple(sorted({parse_hex(t) for t in action.blocked}))
    sources = tuple(sorted({parse_hex(t) for t in action.sources}))
    for hex_ in (*blocked, *sources):
        if not on_map(hex_, hex_map):
            raise InvalidInput(
                f"Hex {format_hex(hex_)} is off a {action.columns}×{action.rows} map."
            )
    placed = [(u.name, u.hex) for u in state.units] + [(w.name, w.hex) for w in state.wagons]
    for name, where in placed:
        if where is not None and not on_map(where, hex_map):
            raise InvalidInput(f"{name} stands at {format_hex(where)}, off this map.")
    hex_map = hex_map.model_copy(update={"blocked": blocked, "supply_sources": sources})
    return CwbOutcome(
        state=state.model_copy(update={"map": hex_map}),
        steps=(
            Step(
                rule="CWB Isolated Units",
                text=f"Map {action.columns}×{action.rows} ({action.layout}), "
                f"{counted(len(blocked), 'Blocked hex', 'Blocked hexes')}, "
                f"{counted(len(sources), 'Supply Source hex', 'Supply Source hexes')}",
            ),
        ),
    )


__all__ = [
    "OPTION_NAMES",
    "add_unit",
    "add_wagon",
    "list_units",
    "new_game",
    "remove_unit",
    "set_map",
    "set_params",
    "set_unit",
    "set_wagon",
    "unit_types",
]
