"""Direct tests of the commands generated from action models: their Discord payload and callbacks.

No bot runs here (these are not ``e2e``): the payload is what ``CommandTree.sync`` would send.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

import discord
import pytest
from discord import app_commands
from pydantic import BaseModel, Field, create_model

from bot.config import Settings
from bot.discord_ui.appcommands import (
    PREVIEW_HELP,
    build_command,
    build_commands,
    command_path,
    help_text,
)
from bot.discord_ui.client import run
from bot.discord_ui.sync import payload_hash, state_path, tree_payload
from bot.discord_ui.tree import user_message
from bot.errors import NoGameHere
from rules_core.errors import InvalidInput
from rules_core.system import SYSTEM_NAMES, get_system
from tests.e2e.toy_actions import TOY_ACTIONS, Fire, UnitAdd
from tests.fake_discord import check_command
from tests.fake_discord.server import DiscordError

Call = tuple[Any, tuple[str, ...], dict[str, Any], bool]


class Recorder:
    def __init__(self) -> None:
        self.calls: list[Call] = []

    async def __call__(
        self, interaction: Any, path: tuple[str, ...], options: dict[str, Any], preview: bool
    ) -> None:
        self.calls.append((interaction, path, options, preview))


async def no_names(interaction: Any, kind: str, current: str) -> list[str]:
    return []


def payload(*models: type[BaseModel]) -> list[dict[str, Any]]:
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.default())
    )
    for command in build_commands(models, Recorder(), no_names):
        tree.add_command(command)
    result: list[dict[str, Any]] = tree_payload(tree, None)
    return result


def test_nested_action_becomes_group_subgroup_and_command() -> None:
    [toy] = payload(UnitAdd)
    assert (toy["name"], toy["type"]) == ("toy", 1)
    [unit] = toy["options"]
    assert (unit["name"], unit["type"]) == ("unit", 2)
    [add] = unit["options"]
    assert add == {
        "name": "add",
        "description": "Add a unit to the game.",
        "type": 1,
        "options": [
            {
                "type": 3,
                "name": "name",
                "description": "The unit's name",
                "required": True,
                "min_length": 1,
                "max_length": 40,
            },
            {
                "type": 3,
                "name": "side",
                "description": "Its side",
                "required": True,
                "autocomplete": True,
            },
            {
                "type": 3,
                "name": "kind",
                "description": "What it is",
                "required": True,
                "choices": [
                    {"name": "squad", "value": "squad"},
                    {"name": "crew", "value": "crew"},
                    {"name": "leader", "value": "leader"},
                ],
            },
            {
                "type": 3,
                "name": "replaced-by",
                "description": "What replaces it (FB16.6)",
                "required": False,
            },
            {  # gt=2, lt=11 on an int is 3..10
                "type": 4,
                "name": "morale",
                "description": "Its morale",
                "required": False,
                "min_value": 3,
                "max_value": 10,
            },
        ],
    }


def test_rolling_command_gets_enum_choices_ranges_and_preview_last() -> None:
    [toy] = payload(Fire)
    [fire] = toy["options"]
    assert fire["description"] == "Fire weapons at a target; rolls the IFT DR."
    by_name = {option["name"]: option for option in fire["options"]}
    assert list(by_name) == ["weapons", "phase", "drm", "sustained", "preview"]
    assert by_name["weapons"]["autocomplete"] is True
    assert by_name["phase"]["choices"] == [
        {"name": "rph", "value": "rph"},
        {"name": "pfph", "value": "pfph"},
    ]
    assert (by_name["drm"]["min_value"], by_name["drm"]["max_value"]) == (-6, 6)
    assert by_name["sustained"]["type"] == 5
    assert by_name["preview"] == {
        "type": 5,
        "name": "preview",
        "description": PREVIEW_HELP,
        "required": False,
    }


def test_only_rolling_commands_take_preview() -> None:
    names = [
        option["name"]
        for command in payload(*TOY_ACTIONS)
        for option in _walk(command)
        if option["name"] == "preview"
    ]
    assert names == ["preview"]  # Fire alone rolls dice


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for option in node.get("options", []):
        found.append(option)
        found += _walk(option)
    return found


def test_one_word_action_is_a_top_level_command() -> None:
    commands = payload(*TOY_ACTIONS)
    assert sorted(command["name"] for command in commands) == ["boom", "toy"]
    assert [command["dm_permission"] for command in commands] == [False, False]  # servers only


async def test_callback_passes_only_typed_options_converted_for_the_model() -> None:
    recorder = Recorder()
    command = build_command(Fire, recorder, no_names)
    interaction: Any = object()
    await command.callback(  # type: ignore[call-arg]
        interaction, weapons=" MMG,HMG , ", phase="rph", drm=None, sustained=None, preview=True
    )
    assert recorder.calls == [
        (interaction, ("toy", "fire"), {"weapons": ("MMG", "HMG"), "phase": "rph"}, True)
    ]
    options = recorder.calls[0][2]
    assert Fire.model_validate({"action": "toy.fire", **options}).drm == 0


async def test_list_autocomplete_keeps_earlier_names_and_stays_within_limits() -> None:
    asked: list[tuple[str, str]] = []

    async def names(interaction: Any, kind: str, current: str) -> list[str]:
        asked.append((kind, current))
        return [f"W{i}" for i in range(40)] + ["x" * 120]

    command = build_command(Fire, Recorder(), names)
    weapons = command._params["weapons"]
    assert weapons.autocomplete is not None
    choices = await weapons.autocomplete(object(), "MMG, HMG, w")
    assert asked == [("weapon", "w")]
    assert len(choices) == 25
    assert choices[0].value == "MMG, HMG, W0"
    assert all(len(choice.name) <= 100 for choice in choices)


async def test_autocomplete_offers_nothing_when_the_lookup_refuses() -> None:
    async def no_game(interaction: Any, kind: str, current: str) -> list[str]:
        raise NoGameHere("There is no game in this channel.")

    weapons = build_command(Fire, Recorder(), no_game)._params["weapons"]
    assert weapons.autocomplete is not None
    assert await weapons.autocomplete(object(), "MM") == []


def test_path_and_help_come_from_the_model() -> None:
    assert command_path(UnitAdd) == ("toy", "unit", "add")
    assert help_text(Fire) == "Fire weapons at a target; rolls the IFT DR."

    class Undocumented(BaseModel):
        action: Literal["toy.wait"] = "toy.wait"

    assert help_text(Undocumented) == "Toy wait"


def test_models_that_break_the_convention_are_refused() -> None:
    class NoAction(BaseModel):
        """No action."""

        side: str

    class TooDeep(BaseModel):
        """Four words."""

        action: Literal["a.b.c.d"] = "a.b.c.d"

    class Previewing(BaseModel):
        """Preview is taken."""

        rolls_dice: ClassVar[bool] = True
        action: Literal["toy.peek"] = "toy.peek"
        preview: bool = Field(default=False, description="Mine")

    class ChoiceCompleted(BaseModel):
        """Autocomplete on choices."""

        action: Literal["toy.pick"] = "toy.pick"
        side: Literal["a", "b"] = Field(
            description="Side", json_schema_extra={"autocomplete": "side"}
        )

    hexes: Any = Literal[tuple(f"A{i}" for i in range(30))]
    hex_action: Any = Literal["toy.hex"]
    too_many_choices: type[BaseModel] = create_model(
        "TooManyChoices",
        action=(hex_action, "toy.hex"),
        hex=(hexes, Field(description="Hex")),
    )

    class Nested(BaseModel):
        """A model inside."""

        action: Literal["toy.nest"] = "toy.nest"
        inner: UnitAdd = Field(description="Inner")

    class NumberCompleted(BaseModel):
        """Autocomplete on a number."""

        action: Literal["toy.count"] = "toy.count"
        count: int = Field(description="Count", json_schema_extra={"autocomplete": "unit"})

    refused: list[tuple[type[BaseModel], str]] = [
        (too_many_choices, "30 choices"),
        (Nested, "cannot type"),
        (NumberCompleted, "plain text option"),
        (NoAction, "no 'action' field"),
        (TooDeep, "one to three words"),
        (Previewing, "reserved"),
        (ChoiceCompleted, "plain text option"),
    ]
    for model, match in refused:
        with pytest.raises(TypeError, match=match):
            build_command(model, Recorder(), no_names)


@pytest.mark.parametrize("name", SYSTEM_NAMES)
def test_every_game_system_makes_commands_discord_accepts(name: str) -> None:
    system = get_system(name)
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.default())
    )
    for command in build_commands(system.action_types, Recorder(), no_names):
        tree.add_command(command)
    commands = tree_payload(tree, None)
    assert [command["name"] for command in commands] == [name]
    for command in commands:
        check_command(command)  # the fake Discord's sync checks, limits included


def test_the_sync_checks_refuse_what_discord_refuses() -> None:
    [good] = payload(UnitAdd)
    check_command(good)
    too_long = {**good, "description": "x" * 101}
    optional_first = {
        "name": "x",
        "description": "d",
        "options": [
            {"type": 3, "name": "a", "description": "d", "required": False},
            {"type": 3, "name": "b", "description": "d", "required": True},
        ],
    }
    huge = {
        "name": "x",
        "description": "d",
        "options": [
            {
                "type": 3,
                "name": f"o{i}",
                "description": "d" * 100,
                "required": False,
                "choices": [{"name": f"{j}" * 100, "value": "v"} for j in range(25)],
            }
            for i in range(4)
        ],
    }
    for bad in (too_long, optional_first, huge, {**good, "name": "Toy"}):
        with pytest.raises(DiscordError) as refused:
            check_command(bad)
        assert refused.value.code == 50035


def test_error_messages_for_users_and_none_for_bugs() -> None:
    assert user_message(InvalidInput("There is no unit called 'Bob'.")) == (
        "There is no unit called 'Bob'."
    )
    wrapped = app_commands.CommandInvokeError.__new__(app_commands.CommandInvokeError)
    wrapped.original = NoGameHere("There is no game in this channel; start one with /game new.")
    assert user_message(wrapped) == "There is no game in this channel; start one with /game new."
    assert user_message(KeyError("x")) is None


def test_sync_hash_depends_on_commands_application_and_scope() -> None:
    commands = payload(*TOY_ACTIONS)
    base = payload_hash(1, "global", commands)
    assert payload_hash(1, "global", payload(*TOY_ACTIONS)) == base
    assert payload_hash(1, "global", payload(Fire)) != base
    assert payload_hash(2, "global", commands) != base
    assert payload_hash(1, "guild:5", commands) != base
    assert state_path(Path("data/referee.db")) == Path("data/referee.db.sync.json")


def test_run_without_a_token_explains_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings.model_construct(discord_token=None, database=Path("unused.db"))
    assert run(settings) == 2
    assert "DISCORD_TOKEN is not set" in capsys.readouterr().out
