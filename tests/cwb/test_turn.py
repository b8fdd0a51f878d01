"""``/cwb turn``: the start of a side's turn, with or without the Isolation optional rule."""

from __future__ import annotations

from rules_core.cwb import SYSTEM, Ammo, CwbState, Turn, Unit
from rules_core.cwb.scenario import new_game
from rules_core.dice import ScriptedDice


def _game(isolation: bool) -> CwbState:
    state = new_game(["Union", "Confederate"], {"cwb_isolation": isolation})
    return state.model_copy(
        update={
            "units": (
                Unit(name="1st Minnesota", side="Union", men=262, ammo=Ammo.LOW),
                Unit(name="20th Maine", side="Union", men=386, isolated=True),
                Unit(name="26th NC", side="Confederate", men=800, ammo=Ammo.OUT),
            )
        }
    )


def test_a_turn_without_the_optional_rule_is_recorded_and_tests_no_unit() -> None:
    state = _game(isolation=False)
    with ScriptedDice([]) as dice:
        outcome = SYSTEM.run(state, Turn(side="union"), dice)
    assert outcome.state == state
    assert outcome.rolls == ()
    assert outcome.facts == (("turn", "Union"),)
    assert outcome.explanation() == [
        "CWB Isolated Units: Start of the turn of Union",
        "CWB Isolated Units: The Isolation Effects Optional Rule is not in use for Union: "
        "no unit is tested",
        "CWB Supply: Low or Out Of Ammo: 1st Minnesota (Low On Ammo) — morale checks −1 (the "
        "players apply it; the bot rolls no morale check); Supply Wagons resupply them at the "
        "start of the Movement Phase (/cwb supply or /cwb resupply)",
    ]


def test_a_turn_with_the_rule_and_no_map_keeps_the_declared_flags() -> None:
    state = _game(isolation=True)
    outcome = SYSTEM.run(state, Turn(side="Union"), ScriptedDice([]))
    assert outcome.state == state
    assert outcome.facts == (("turn", "Union"),)
    assert outcome.explanation()[1:3] == [
        "CWB Isolated Units: 1st Minnesota is not traced (no map): its flag stays not Isolated; "
        "declare the test's result with /cwb isolation",
        "CWB Isolated Units: 20th Maine is not traced (no map): its flag stays Isolated; "
        "declare the test's result with /cwb isolation",
    ]


def test_a_turn_of_a_side_with_no_unit_short_of_ammunition_lists_none() -> None:
    state = _game(isolation=False)
    outcome = SYSTEM.run(state, Turn(side="Confederate"), ScriptedDice([]))
    assert outcome.explanation()[-1].startswith("CWB Supply: Low or Out Of Ammo: 26th NC (Out")
    calm = state.model_copy(update={"units": state.units[1:2]})
    assert len(SYSTEM.run(calm, Turn(side="Union"), ScriptedDice([])).steps) == 2
