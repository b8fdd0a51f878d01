"""Bad input and forbidden declarations: one clear sentence, no die rolled, nothing changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules_core.cwb import SYSTEM, Ammo, CwbState
from rules_core.cwb.state import HexMap, SideData, Unit, Wagon
from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from tests.asl.console import play

STATE = CwbState(
    sides=(
        SideData(name="Union", ammo_loss_pct=4),
        SideData(name="Confederate"),  # Parameter Data not entered yet
    ),
    units=(
        Unit(name="1st Minnesota", side="Union", men=262, ammo=Ammo.LOW),
        Unit(name="26th North Carolina", side="Confederate", men=800, ammo=Ammo.LOW),
        Unit(name="Pegram", side="Confederate", type="artillery", men=90),
    ),
    wagons=(
        Wagon(name="Union Trains", side="Union", strength=30),
        Wagon(name="Rebel Trains", side="Confederate", strength=30),
    ),
)

GAME_WIDE = (
    "Wagon rounding and ammo-loss types are the whole game's, never one side's: give them "
    "without side: (per side: ammo-loss, artillery-ammo, isolation)."
)

CASES: list[tuple[dict[str, Any], type[RulesError], str]] = [
    (
        {"action": "cwb.fire", "unit": "20th Maine", "mode": "defensive"},
        InvalidInput,
        "There is no unit called '20th Maine' in this game.",
    ),
    (
        {"action": "cwb.resupply", "unit": "1st Minnesota", "wagon": "Rebel Trains", "path": 1},
        IllegalAction,
        "Wagon Rebel Trains belongs to Confederate; 1st Minnesota can only draw from a friendly "
        "Supply Wagon of Union. (CWB Supply)",
    ),
    (
        {"action": "cwb.resupply", "unit": "1st Minnesota", "wagon": "Union Trains", "path": 6},
        IllegalAction,
        "A path of 6 hexes is longer than the 5 hexes allowed between a unit and the Supply "
        "Wagon that resupplies it. (CWB Supply)",
    ),
    (
        {"action": "cwb.resupply", "unit": "1st Minnesota", "wagon": "Union Trains"},
        InvalidInput,
        "Declare the path from 1st Minnesota to wagon Union Trains in hexes (path:), since they "
        "are not both placed on a registered map.",
    ),
    (
        {"action": "cwb.resupply", "unit": "1st Minnesota", "wagon": "Ghost Trains", "path": 1},
        InvalidInput,
        "There is no Supply Wagon called 'Ghost Trains' in this game.",
    ),
    (
        {"action": "cwb.fire", "unit": "26th North Carolina", "mode": "defensive"},
        IllegalAction,
        "The ammo-loss percentage of Confederate is not set; enter the scenario's Parameter "
        "Data with /cwb params first. (CWB Supply)",
    ),
    (
        {"action": "cwb.isolation", "unit": "1st Minnesota", "isolated": True},
        IllegalAction,
        "The Isolation Effects Optional Rule is not in use for Union; turn it on with "
        "/cwb params isolation:true. (CWB Isolated Units)",
    ),
    (
        {"action": "cwb.unit.add", "name": "1st minnesota", "side": "Union", "men": 10},
        InvalidInput,
        "There is already a unit or wagon called '1st minnesota' in this game.",
    ),
    (
        {"action": "cwb.unit.add", "name": "20th Maine", "side": "Prussia", "men": 10},
        InvalidInput,
        "There is no side called 'Prussia' in this game; sides: Union, Confederate.",
    ),
    (
        {"action": "cwb.unit.add", "name": "20th Maine", "side": "Union", "men": 10, "hex": "C5"},
        InvalidInput,
        "'C5' is not a hex; write column,row as in 12,5 (12/5 in lists).",
    ),
    (
        {"action": "cwb.turn", "side": "Prussia"},
        InvalidInput,
        "There is no side called 'Prussia' in this game; sides: Union, Confederate.",
    ),
    (
        {"action": "cwb.params", "ammo_loss_types": ["infantry", "zouaves"]},
        InvalidInput,
        "'zouaves' is not a unit type; choose from infantry, cavalry, artillery.",
    ),
    (
        {"action": "cwb.params"},
        InvalidInput,
        "Give at least one Parameter Data value to set.",
    ),
    # the Parameter Data's wagon rounding and ammo-loss types are the game's: found by trying
    # it, side:Union wagon-rounding:floor set the Confederate wagons' rounding as well
    (
        {"action": "cwb.params", "side": "Union", "wagon_rounding": "floor"},
        InvalidInput,
        GAME_WIDE,
    ),
    (
        {"action": "cwb.params", "side": "Union", "ammo_loss": 4, "ammo_loss_types": ["cavalry"]},
        InvalidInput,
        GAME_WIDE,
    ),
]


@pytest.mark.parametrize(("data", "error", "message"), CASES)
def test_refused_with_one_sentence_and_nothing_changes(
    data: dict[str, Any], error: type[RulesError], message: str
) -> None:
    before = STATE.model_dump_json()
    action = SYSTEM.parse_action(data)
    dice = ScriptedDice([])
    with pytest.raises(error) as caught:
        SYSTEM.run(STATE, action, dice)
    assert caught.value.user_message == message
    assert caught.value.user_message.count(". ") <= 1  # one sentence (plus its rule)
    assert dice.rolls == ()
    assert STATE.model_dump_json() == before


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"action": "cwb.unit.add", "name": "X", "side": "Union", "men": -5},
            "men must be 1 or more, not -5.",
        ),
        (
            {"action": "cwb.wagon.add", "name": "W", "side": "Union", "strength": 0},
            "strength must be 1 or more, not 0.",
        ),
        (
            {
                "action": "cwb.resupply",
                "unit": "1st Minnesota",
                "wagon": "Union Trains",
                "path": -1,
            },
            "path must be 0 or more, not -1.",
        ),
        (
            {"action": "cwb.params", "ammo_loss": 101},
            "ammo-loss must be 100 or less, not 101.",
        ),
        (
            {"action": "cwb.fire", "unit": "1st Minnesota", "mode": "charge"},
            "mode must be 'offensive' or 'defensive', not 'charge'.",
        ),
    ],
)
def test_malformed_declarations_are_invalid_input(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        SYSTEM.parse_action(data)
    assert caught.value.user_message.endswith(message)


def test_negative_men_refused_even_when_the_model_is_built_unchecked() -> None:
    from rules_core.cwb.actions import UnitAdd

    action = UnitAdd.model_construct(
        name="X", side="Union", men=-5, type="infantry", ammo=Ammo.NORMAL, hex=None
    )
    with pytest.raises(InvalidInput, match=r"^A unit needs at least 1 man, not -5\.$"):
        SYSTEM.run(STATE, action, ScriptedDice([]))


def test_resupply_refused_on_the_map_when_zoc_blocks_every_short_path() -> None:
    board = HexMap(columns=9, rows=9)
    # unit at 4,4 and wagon at 4,6 (odd-q); the enemy at 4,5 between them puts all six hexes
    # around it in its ZOC, so the shortest way round is 8 hexes: no path of at most 5.
    state = CwbState(
        sides=(SideData(name="Union", ammo_loss_pct=4), SideData(name="Confederate")),
        units=(
            Unit(name="A", side="Union", men=50, ammo=Ammo.OUT, hex=(4, 4)),
            Unit(name="E", side="Confederate", men=50, hex=(4, 5)),
        ),
        wagons=(Wagon(name="W", side="Union", strength=5, hex=(4, 6)),),
        map=board,
    )
    resupply = SYSTEM.parse_action({"action": "cwb.resupply", "unit": "A", "wagon": "W"})
    before = state.model_dump_json()
    with pytest.raises(IllegalAction) as caught:
        SYSTEM.run(state, resupply, ScriptedDice([]))
    assert caught.value.user_message == (
        "A at 4,4 has no path of at most 5 hexes to wagon W at 4,6 that avoids enemy units and "
        "empty hexes in enemy Zones-Of-Control. (CWB Supply)"
    )
    assert state.model_dump_json() == before
    # friendly units in the ZOC hexes 3,4 and 3,5 make them passable: 4,4 → 3,4 → 3,5 → 4,6
    friends = state.with_unit(Unit(name="B", side="Union", men=50, hex=(3, 4))).with_unit(
        Unit(name="C", side="Union", men=50, hex=(3, 5))
    )
    outcome = SYSTEM.run(friends, resupply, ScriptedDice([]))
    assert outcome.explanation()[0] == (
        "CWB Supply: Path traced on the map: 3 hexes, 4,4 → 3,4 → 3,5 → 4,6"
    )
    assert outcome.state == friends.with_unit(
        Unit(name="A", side="Union", men=50, hex=(4, 4))
    ).without_wagon("W")


async def test_a_params_proposal_the_rules_refuse_is_refused_when_proposed(
    tmp_path: Path,
) -> None:
    """CWB Supply's Parameter Data through the table — found by trying it: the Confederate
    player's /cwb params (set-up: proposed to the Union player) naming no value, or a side with
    the game's wagon rounding, was logged as a proposal, refused only at its confirmation (the
    second not even then). Refused when proposed now, nothing logged."""
    played = await play(
        tmp_path,
        """
        /game new system:cwb
        @alice /game seat side:Union
        @bob /game seat side:Confederate
        @bob /cwb params side:Confederate
        @bob /cwb params side:Confederate wagon-rounding:floor
        @bob /cwb params wagon-rounding:floor
        """,
    )
    assert played.refused("@bob /cwb params side:Confederate") == (
        "Give at least one Parameter Data value to set.",
        None,
    )
    assert played.refused("@bob /cwb params side:Confederate wagon-rounding:floor")[0] == GAME_WIDE
    assert played.reply("@bob /cwb params wagon-rounding:floor")["seq"] == 4  # nothing logged
