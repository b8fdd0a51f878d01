"""Independent audit of rules_core.cwb against the HPS supply page and docs/rules/CWB.md.

Expected values are written from the page and our readings (exact odds by hand), not the code.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from rules_core.cwb import SYSTEM
from rules_core.cwb.actions import Fire, Isolation, Melee, Params, Resupply, UnitAdd, WagonAdd
from rules_core.cwb.state import Ammo, CwbState, SideData, Unit, Wagon
from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from rules_core.system import get_system


def _game(*units: Unit, wagons: tuple[Wagon, ...] = (), pct: int | None = 4) -> CwbState:
    state = SYSTEM.new_state(
        ["Union", "Confederate"], {} if pct is None else {"cwb_ammo_loss_pct": pct}
    )
    return state.model_copy(update={"units": units, "wagons": wagons})


def _run(state: CwbState, action: object, faces: tuple[int, ...] = ()) -> CwbState:
    with ScriptedDice(faces) as dice:
        return SYSTEM.run(state, action, dice).state  # type: ignore[arg-type]


# --- option flags and their defaults ---
def test_section7_flags_exist_with_defaults() -> None:
    state = SYSTEM.new_state(["Union", "Confederate"], {})
    assert state.wagon_rounding == "ceil"  # cwb_wagon_rounding
    assert state.ammo_loss_types == ("infantry", "cavalry")  # cwb_ammo_loss_types
    assert state.isolated_artillery_own_ammo is True  # isolated artillery own ammo: on
    assert state.isolation_avoids_enemy_units is True  # trace avoids enemy units: on
    assert all(s.ammo_loss_pct is None for s in state.sides)  # entered with /cwb params
    per_side = SYSTEM.new_state(
        ["Union", "Confederate"], {"cwb_ammo_loss_pct": {"Union": 4, "Confederate": 6}}
    )
    assert [s.ammo_loss_pct for s in per_side.sides] == [4, 6]
    flagged = SYSTEM.new_state(
        ["Union"], {"cwb_wagon_rounding": "floor", "cwb_ammo_loss_types": ["infantry"]}
    )
    assert (flagged.wagon_rounding, flagged.ammo_loss_types) == ("floor", ("infantry",))


# --- fire permission and ammo loss, one level per loss --------------------------------------------
@pytest.mark.parametrize(
    ("ammo", "mode", "allowed"),
    [
        (Ammo.NORMAL, "offensive", True),
        (Ammo.NORMAL, "defensive", True),
        (Ammo.LOW, "offensive", False),
        (Ammo.LOW, "defensive", True),
        (Ammo.OUT, "offensive", False),
        (Ammo.OUT, "defensive", False),
    ],
)
def test_fire_permission_table(ammo: Ammo, mode: str, allowed: bool) -> None:
    state = _game(Unit(name="A", side="Union", men=300, ammo=ammo))
    action = Fire(unit="A", mode=mode)
    if allowed:
        _run(state, action, (100,))
    else:
        dice = ScriptedDice([])
        with pytest.raises(IllegalAction):
            SYSTEM.run(state, action, dice)
        assert len(dice.rolls) == 0


@pytest.mark.parametrize("p", [0, 1, 4, 37, 99, 100])
def test_ammo_loss_d100_at_most_p_exact_odds(p: int) -> None:
    """d(100) ≤ p drops one level: P = p/100, by hand; boundaries p and p+1."""
    state = _game(Unit(name="A", side="Union", men=300), pct=p)
    odds = SYSTEM.odds(state, Fire(unit="A", mode="offensive"))
    lost = odds.get((("ammo loss", "yes"), ("A", "Low On Ammo")), Fraction(0))
    assert lost == Fraction(p, 100)
    assert sum(odds.values()) == 1
    if p >= 1:
        assert _run(state, Fire(unit="A", mode="offensive"), (p,)).unit("A").ammo is Ammo.LOW
    if p < 100:
        assert _run(state, Fire(unit="A", mode="offensive"), (p + 1,)).unit("A").ammo is Ammo.NORMAL


def test_E17_low_defensive_fire_d100_1_goes_out_then_any_fire_refused() -> None:
    state = _game(Unit(name="A", side="Union", men=300, ammo=Ammo.LOW))
    with pytest.raises(IllegalAction, match="Defensive Fire"):
        SYSTEM.run(state, Fire(unit="A", mode="offensive"), ScriptedDice([]))
    out = _run(state, Fire(unit="A", mode="defensive"), (1,))
    assert out.unit("A").ammo is Ammo.OUT
    for mode in ("offensive", "defensive"):
        with pytest.raises(IllegalAction, match="Out Of Ammo"):
            SYSTEM.run(out, Fire(unit="A", mode=mode), ScriptedDice([]))


def test_artillery_follows_side_level_and_rolls_only_when_isolated() -> None:
    state = SYSTEM.new_state(["Union"], {"cwb_ammo_loss_pct": 50, "cwb_isolation": True})
    battery = Unit(name="B", side="Union", type="artillery", men=100)
    state = state.model_copy(update={"units": (battery,)})
    assert _run(state, Fire(unit="B", mode="offensive")) == state  # no die, no change
    low_side = state.with_side(state.sides[0].model_copy(update={"artillery_ammo": Ammo.LOW}))
    with pytest.raises(IllegalAction):
        SYSTEM.run(low_side, Fire(unit="B", mode="offensive"), ScriptedDice([]))
    isolated = state.with_unit(battery.model_copy(update={"isolated": True}))
    assert _run(isolated, Fire(unit="B", mode="offensive"), (50,)).unit("B").ammo is Ammo.LOW


def test_cavalry_rolls_by_default_and_not_when_the_flag_says_infantry_only() -> None:
    cav = Unit(name="C", side="Union", type="cavalry", men=200)
    assert _run(_game(cav), Fire(unit="C", mode="offensive"), (4,)).unit("C").ammo is Ammo.LOW
    only_inf = _game(cav).model_copy(update={"ammo_loss_types": ("infantry",)})
    assert _run(only_inf, Fire(unit="C", mode="offensive")).unit("C").ammo is Ammo.NORMAL


# --- wagons, 1 strength per 10 men ---
@pytest.mark.parametrize("men", [1, 9, 10, 11, 15, 94, 95, 100, 101, 1000])
@pytest.mark.parametrize("rounding", ["ceil", "round", "floor"])
def test_wagon_cost_one_per_ten_men_with_the_rounding_flag(men: int, rounding: str) -> None:
    exact = Fraction(men, 10)
    cost = {
        "ceil": math.ceil(exact),
        "floor": math.floor(exact),
        "round": math.floor(exact + Fraction(1, 2)),
    }[rounding]
    unit = Unit(name="A", side="Union", men=men, ammo=Ammo.LOW)
    state = _game(unit, wagons=(Wagon(name="W", side="Union", strength=200),))
    state = state.model_copy(update={"wagon_rounding": rounding})
    after = _run(state, Resupply(unit="A", wagon="W", path=5))
    assert after.unit("A").ammo is Ammo.NORMAL
    assert after.wagon("W").strength == 200 - cost


@pytest.mark.parametrize(
    ("men", "ammo", "strength", "path", "routed", "ok", "wagon_after"),
    [
        (95, Ammo.LOW, 10, 2, False, True, None),  # E10 row 1: wagon 0 ⇒ removed
        (95, Ammo.OUT, 9, 2, False, False, 9),  # row 2: cost 10 > 9, stays OUT
        (100, Ammo.LOW, 25, 2, False, True, 15),  # row 3
        (1, Ammo.LOW, 1, 2, False, True, None),  # row 4
        (95, Ammo.LOW, 50, 2, True, False, 50),  # row 5: Routed
        (95, Ammo.LOW, 50, 6, False, False, 50),  # row 6: 6 hexes away
        (95, Ammo.LOW, 50, 5, False, True, 40),  # 5 hexes is allowed
    ],
)
def test_E10_rows(
    men: int, ammo: Ammo, strength: int, path: int, routed: bool, ok: bool, wagon_after: int | None
) -> None:
    unit = Unit(name="A", side="Union", men=men, ammo=ammo, routed=routed)
    state = _game(unit, wagons=(Wagon(name="W", side="Union", strength=strength),))
    action = Resupply(unit="A", wagon="W", path=path)
    if not ok:
        with pytest.raises(IllegalAction):
            SYSTEM.run(state, action, ScriptedDice([]))
        return
    after = _run(state, action)
    assert after.unit("A").ammo is Ammo.NORMAL
    assert after.units == (unit.model_copy(update={"ammo": Ammo.NORMAL}),)
    assert after.wagons == (
        () if wagon_after is None else (Wagon(name="W", side="Union", strength=wagon_after),)
    )


def test_E10_normal_unit_costs_nothing() -> None:
    state = _game(
        Unit(name="A", side="Union", men=95), wagons=(Wagon(name="W", side="Union", strength=50),)
    )
    assert _run(state, Resupply(unit="A", wagon="W", path=1)) == state


# --- isolation (4.5) ---
def test_isolated_melee_defence_is_exactly_one_quarter() -> None:
    state = SYSTEM.new_state(["Union"], {"cwb_isolation": True})
    state = state.model_copy(update={"units": (Unit(name="A", side="Union", men=262),)})
    state = _run(state, Isolation(unit="A", isolated=True))
    with ScriptedDice([]) as dice:
        out = SYSTEM.run(state, Melee(unit="A", strength=7), dice)
    assert out.facts == (("A melee defence", str(Fraction(7, 4))),)


# --- refusals: one sentence, before any die, nothing changed ---
@pytest.mark.parametrize(
    "action",
    [
        Fire(unit="Nobody", mode="offensive"),
        Resupply(unit="A", wagon="Reb", path=1),
        Resupply(unit="A", wagon="W", path=6),
        Resupply(unit="A", wagon="Nowhere", path=1),
        Isolation(unit="A", isolated=True),  # rule not in use
        WagonAdd(name="X", side="Prussia", strength=3),
        UnitAdd(name="A", side="Union", men=10),  # duplicate name
    ],
)
def test_bad_input_refused_with_one_sentence_before_any_die(action: object) -> None:
    state = _game(
        Unit(name="A", side="Union", men=95, ammo=Ammo.LOW),
        wagons=(
            Wagon(name="W", side="Union", strength=50),
            Wagon(name="Reb", side="Confederate", strength=50),
        ),
    )
    dice = ScriptedDice([])
    with pytest.raises(RulesError) as info:
        SYSTEM.run(state, action, dice)  # type: ignore[arg-type]
    assert len(dice.rolls) == 0
    message = str(info.value)
    assert message[0].isupper() and ". " not in message.split(" (CWB")[0].split(" (RES")[0].rstrip(
        "."
    )


@pytest.mark.parametrize(
    "data",
    [
        {"action": "cwb.unit.add", "name": "A", "side": "Union", "men": -5},
        {"action": "cwb.resupply", "unit": "A", "wagon": "W", "path": -1},
    ],
)
def test_negative_men_or_path_refused_by_the_command_parser(data: dict[str, object]) -> None:
    with pytest.raises(InvalidInput) as info:
        SYSTEM.parse_action(data)
    assert str(info.value).endswith(".")


def test_fire_without_parameter_data_refused() -> None:
    state = _game(Unit(name="A", side="Union", men=95), pct=None)
    with pytest.raises(IllegalAction, match="Parameter Data"):
        SYSTEM.run(state, Fire(unit="A", mode="offensive"), ScriptedDice([]))


# --- summary for /game status ---
def test_summary_lists_percent_marked_units_and_wagons() -> None:
    state = SYSTEM.new_state(
        ["Union", "Confederate"], {"cwb_ammo_loss_pct": {"Union": 4, "Confederate": 6}}
    )
    state = _run(state, Params(side="Confederate", artillery_ammo=Ammo.LOW))
    state = state.model_copy(
        update={
            "units": (
                Unit(name="1st Minnesota", side="Union", men=262, ammo=Ammo.LOW),
                Unit(name="20th Maine", side="Union", men=386, ammo=Ammo.OUT, routed=True),
                Unit(name="26th NC", side="Confederate", men=800, isolated=True),
            ),
            "wagons": (Wagon(name="II Corps", side="Union", strength=25),),
        }
    )
    assert get_system("cwb").summary(state) == [
        "Union: ammo loss 4 %",
        "Union Low On Ammo (morale checks −1, the players apply it): 1st Minnesota",
        "Union Out Of Ammo (morale checks −1, the players apply it): 20th Maine",
        "Union Routed: 20th Maine",
        "Union wagons: II Corps 25",
        "Confederate: ammo loss 6 %; artillery Low On Ammo",
        "Confederate Isolated: 26th NC",
        "Confederate wagons: none",
    ]


def test_summary_stays_short_with_many_units() -> None:
    units = tuple(
        Unit(name=f"Regiment {i}", side="Union", men=300, ammo=Ammo.LOW) for i in range(200)
    )
    lines = SYSTEM.summary(_game(*units))
    assert all(len(line) <= 180 for line in lines) and len(lines) <= 6
    assert SideData(name="x").ammo_loss_pct is None


def test_fire_preview_takes_at_most_5_ms() -> None:
    """Issue 5: each preview (SYSTEM.odds, 100 d100 branches) ≤ 5 ms, best of 5."""
    import timeit

    state = _game(Unit(name="A", side="Union", men=300))
    action = Fire(unit="A", mode="offensive")
    best = min(timeit.repeat(lambda: SYSTEM.odds(state, action), number=20, repeat=5)) / 20
    # the 5 ms target is measured by bench.run (docs/PERFORMANCE.md); this catches only a preview
    # ten times over it, which a loaded shared machine cannot cause
    assert best <= 0.05, best


@pytest.mark.parametrize("p", [None, 0, 1, 4, 50, 99, 100])
@pytest.mark.parametrize(
    ("kind", "ammo", "isolated"),
    [
        ("infantry", Ammo.NORMAL, False),
        ("infantry", Ammo.LOW, False),
        ("cavalry", Ammo.NORMAL, False),
        ("artillery", Ammo.NORMAL, False),
        ("artillery", Ammo.NORMAL, True),
    ],
)
@pytest.mark.parametrize("mode", ["offensive", "defensive"])
def test_fire_odds_shortcut_equals_the_full_d100_enumeration(
    p: int | None, kind: str, ammo: Ammo, isolated: bool, mode: str
) -> None:
    from rules_core.odds import exact_odds

    state = SYSTEM.new_state(["Union"], {"cwb_isolation": True})
    if p is not None:
        state = state.with_side(state.sides[0].model_copy(update={"ammo_loss_pct": p}))
    unit = Unit(name="A", side="Union", type=kind, men=100, ammo=ammo, isolated=isolated)
    state = state.model_copy(update={"units": (unit,)})
    action = Fire(unit="A", mode=mode)
    try:
        full = exact_odds(lambda dice: SYSTEM.resolve(state, action, dice).facts)
    except RulesError as exc:
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            SYSTEM.odds(state, action)
        return
    assert SYSTEM.odds(state, action) == full
