"""The command layer: declarations read from the models, console lines parsed into actions."""

from __future__ import annotations

import pytest

from bot.commands import build_action, build_registry, command_spec, parse_line
from bot.errors import BadCommand
from bot.models import UserRef
from bot.service.systems import InstalledSystems
from bot.table.commands import TABLE_COMMANDS, GameNew, GameVoid, RollDice, Stats
from rules_core.errors import InvalidInput
from tests.bot.toysystem import SYSTEM, Shoot


def test_table_commands_follow_the_declaration_convention() -> None:
    registry = build_registry({"toy": SYSTEM})
    for model in TABLE_COMMANDS:
        spec = command_spec(model)
        assert 1 <= len(spec.help) <= 100
        assert len(spec.words) <= 3
        for option in spec.options:
            assert 1 <= len(option.help) <= 100, (spec.path, option.name)
        assert spec.path in registry.commands
    new = registry.find(("game", "new"))
    assert new.option("system") is not None
    assert new.option("system").choices == ("toy",)  # type: ignore[union-attr]
    void = command_spec(GameVoid)
    entry = void.option("entry")
    assert entry is not None and entry.type == "integer" and entry.min_value == 1
    assert [o.name for o in command_spec(RollDice).options][-1] == "preview"
    scope = command_spec(Stats).option("scope")
    assert scope is not None and scope.choices == ("game", "channel", "server")


def test_every_installed_systems_commands_are_generated_with_typed_options() -> None:
    systems = InstalledSystems()
    registry = build_registry(systems)
    for name, system in systems.items():
        for model in system.action_types:
            spec = registry.commands[model.model_fields["action"].default]
            assert spec.system == name
            assert (spec.option("preview") is not None) == spec.rolls_dice
            required = [o.required for o in spec.options]
            assert required == sorted(required, reverse=True)  # required options first


def test_a_console_line_becomes_a_typed_action() -> None:
    registry = build_registry({"toy": SYSTEM})
    words, values = parse_line('/toy shoot side:Axis target:9 weapons:"HMG A, LMG B" careful:yes')
    action, preview = build_action(registry.find(words), values)
    assert action == Shoot(side="Axis", target=9, weapons=("HMG A", "LMG B"), careful=True)
    assert preview is False
    action, preview = build_action(registry.find(("toy", "shoot")), {"side": "A", "preview": "1"})
    assert preview is True


def test_users_are_resolved_by_the_caller() -> None:
    registry = build_registry({"toy": SYSTEM})
    action, _ = build_action(
        registry.find(("stats",)), {"player": "@bob"}, lambda t: UserRef(id=7, name=t[1:])
    )
    assert isinstance(action, Stats) and action.player == UserRef(id=7, name="bob")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/toy shoot side:Axis target:13", "target must be 12 or less, not 13."),
        ("/toy shoot side:Axis target:x", "target must be a whole number, not 'x'."),
        ("/toy shoot side:Axis careful:maybe", "careful must be true or false, not 'maybe'."),
        ("/toy shoot side:Axis range:3", "/toy shoot has no option 'range'"),
        ("/toy shoot", "Give the option side."),
        ("/game new system:toy title:" + "x" * 101, "title may have at most 100 characters."),
    ],
)
def test_bad_options_are_one_user_safe_sentence(line: str, message: str) -> None:
    registry = build_registry({"toy": SYSTEM})
    words, values = parse_line(line)
    with pytest.raises(InvalidInput) as caught:
        build_action(registry.find(words), values)
    assert caught.value.user_message.startswith(message)


@pytest.mark.parametrize(
    "line", ["game status", '/roll dice:"DR', "/", "/roll dice:DR x", "/roll a:1 a:2"]
)
def test_lines_that_cannot_be_read_are_bad_commands(line: str) -> None:
    with pytest.raises(BadCommand):
        parse_line(line)


def test_unknown_commands_suggest_the_group() -> None:
    registry = build_registry({"toy": SYSTEM})
    with pytest.raises(BadCommand, match=r"Try one of:\n  play: new · seat"):
        registry.find(("game", "begin"))
    assert isinstance(build_action(registry.find(("game", "new")), {"system": "toy"})[0], GameNew)
