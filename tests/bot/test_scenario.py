"""A scenario set up in one step: its text read, checked whole, applied as one action, written back.

The example scenarios of the docs (``docs/scenarios/*.txt``) are read, applied and written back
out per system; the written text set up in a new game gives the same state (and a property test
draws ASL forces to check that round trip).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from bot.commands.registry import build_registry
from bot.commands.scenario import read_scenario
from rules_core.asl.actions import AddUnit, AddWeapon, Fire, SetLevel, SetSan
from rules_core.dice import ScriptedDice
from rules_core.errors import InvalidInput
from rules_core.scenario import (
    MAX_COMMANDS,
    Setup,
    SetupRefused,
    check_setup,
    make_setup,
    setup_text,
    split_commands,
    write_scenario,
)
from rules_core.system import GameSystem, get_system

SCENARIOS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"
SIDES = {"asl": ["Axis", "Allied"], "ocs": ["Axis", "Soviet"], "cwb": ["Union", "Confederate"]}


def fresh(name: str) -> tuple[GameSystem[Any, Any], BaseModel]:
    system = get_system(name)
    return system, system.new_state(SIDES[name], {})


def read(name: str, text: str) -> tuple[list[tuple[str, BaseModel]], list[tuple[str, str]]]:
    return read_scenario(text, name, build_registry({name: get_system(name)}))


def set_up(name: str, text: str) -> BaseModel:
    """The state a scenario's text sets up in a new game; fails on any error."""
    system, state = fresh(name)
    actions, errors = read(name, text)
    assert errors == []
    outcome, errors = check_setup(system, state, actions)
    assert errors == []
    result: BaseModel = outcome.state
    return result


@pytest.mark.parametrize("name", ["asl", "ocs", "cwb"])
def test_the_example_scenario_sets_up_and_writes_back_the_same_forces(name: str) -> None:
    system, state = fresh(name)
    text = (SCENARIOS / f"{name}.txt").read_text(encoding="utf-8")
    actions, errors = read(name, text)
    assert errors == [] and len(actions) >= 8
    outcome, errors = check_setup(system, state, actions)
    assert errors == []
    # the batch as one action, through its JSON, as the log keeps and a replay reads it
    setup = make_setup(a for _, a in actions)
    logged = json.loads(json.dumps(setup.model_dump(mode="json")))
    replayed = system.run(state, system.parse_action(logged), ScriptedDice([]))
    assert replayed.state == outcome.state
    assert replayed.steps == outcome.steps and replayed.facts == outcome.facts
    # written back out and set up in a new game: the same state
    written = write_scenario(system, outcome.state, "Example")
    assert set_up(name, written) == outcome.state
    assert system.forces(set_up(name, written)) == system.forces(outcome.state)


def test_asl_example_summary_per_side() -> None:
    system, state = fresh("asl")
    actions, _ = read("asl", (SCENARIOS / "asl.txt").read_text(encoding="utf-8"))
    outcome, _ = check_setup(system, state, actions)
    assert outcome.facts == (
        ("Axis", "4 units, 3 weapons"),
        ("Allied", "3 units, 1 weapon"),
        ("settings", "level"),
    )
    assert outcome.explanation()[0] == "FB16.1: Axis: Ammunition Shortage level 2"


def test_every_error_is_listed_with_its_line_and_nothing_is_applied() -> None:
    system, state = fresh("asl")
    text = "\n".join(
        [
            "# two good lines, four bad ones",
            "unit add name:A side:Axis kind:squad quality:4-6-7",
            "unit add name:A side:Axis kind:squad",  # named twice: the rules refuse it
            "weapon add name:LMG side:Axis kind:sw_mg owner:Nobody",  # a missing unit
            "level side:Allied level:2",  # FB16.1: Axis sides only
            "unit add name:B side:Axis kind:tank",  # not a kind
            "fire weapons:LMG",  # rolls: not set-up
            "weapon add name:MMG side:Axis kind:sw_mg owner:A",
        ]
    )
    actions, read_errors = read("asl", text)
    _, rule_errors = check_setup(system, state, actions)
    assert read_errors == [
        ("line 6", "kind must be 'squad', 'half_squad', 'crew', 'leader' or 'hero', not 'tank'."),
        (
            "line 7",
            "/asl fire is not a set-up command; a scenario holds: level, san, unit add, "
            "weapon add.",
        ),
    ]
    assert rule_errors == [
        ("line 3", "'A' already exists; use update:true to change it."),
        ("line 4", "There is no unit called 'Nobody' in this game."),
        ("line 5", "Ammunition Shortage applies only to Axis sides. (FB16.1)"),
    ]
    # as one action, the rules refuse the batch whole, naming each refused command
    setup = make_setup(a for _, a in actions)
    with pytest.raises(SetupRefused) as refused:
        system.run(state, setup, ScriptedDice([]))
    assert [where for where, _ in refused.value.errors] == ["command 2", "command 3", "command 4"]
    assert refused.value.user_message.startswith("Nothing was set up; fix these")


def test_a_long_list_of_errors_is_capped_and_counted() -> None:
    system, state = fresh("asl")
    text = "\n".join(f"unit add name:U{n} side:Nobody kind:squad" for n in range(14))
    actions, _ = read("asl", text)
    _, errors = check_setup(system, state, actions)
    assert len(errors) == 14
    message = SetupRefused(errors).user_message
    assert message.count("There is no side called 'Nobody'") == 10
    assert message.endswith("… and 4 more errors.")


def test_too_many_commands_are_refused_before_any_is_applied() -> None:
    system, state = fresh("asl")
    actions: list[tuple[str, BaseModel]] = [
        (f"line {n}", AddUnit(name=f"U{n}", side="Axis", kind="squad"))
        for n in range(MAX_COMMANDS + 1)
    ]
    outcome, errors = check_setup(system, state, actions)
    assert errors == [("the scenario", f"it holds {MAX_COMMANDS + 1} commands; at most 500.")]
    assert outcome.state == state


def test_a_referee_correction_is_not_part_of_a_set_up() -> None:
    system, state = fresh("asl")
    actions, errors = read(
        "asl", "weapon add name:LMG side:Axis kind:sw_mg status:malfunctioned correction:true"
    )
    assert errors == []
    _, errors = check_setup(system, state, actions)
    assert errors == [("line 1", "correction is a referee's correction, not part of a set-up.")]


def test_a_logged_setup_holding_another_command_is_refused() -> None:
    system, _ = fresh("asl")
    forged = {"action": "game.setup", "actions": [Fire(weapons=("LMG",)).model_dump(mode="json")]}
    with pytest.raises(InvalidInput, match="command 1 is not a set-up command"):
        system.parse_action(forged)
    with pytest.raises(InvalidInput, match="list of actions"):
        system.parse_action({"action": "game.setup", "actions": "unit add"})


def test_the_text_may_start_a_command_with_its_slash_and_system() -> None:
    actions, errors = read("asl", "/asl unit add name:A side:Axis kind:squad; asl level side:Axis")
    assert [a for _, a in actions] == [AddUnit(name="A", side="Axis", kind="squad")]
    assert errors == [("line 1, command 2", "Give the option level.")]


def test_split_commands_keeps_quoted_semicolons_and_drops_comments() -> None:
    assert split_commands("  # note\n\nunit add name:'a;b' ;; level side:Axis level:1\n") == [
        ("line 3, command 1", "unit add name:'a;b'"),
        ("line 3, command 2", "level side:Axis level:1"),
    ]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x85"])
def test_an_error_names_the_line_an_editor_shows(separator: str) -> None:
    """Only a line feed or carriage return ends a line: a Unicode line separator, a form feed or
    a file separator inside a line does not shift the lines the errors name."""
    text = (
        f'unit add name:"A{separator}B" side:Axis kind:squad\r\n'
        f"unit add name:C side:Axis kind:squad{separator}unit add name:D side:Axis kind:squad\r"
        "unit add name:E side:Axis kind:tank\n"
    )
    actions, errors = read("asl", text)
    assert actions == []
    assert [where for where, _ in errors] == ["line 1", "line 2", "line 3"]
    assert "control character or a line break" in errors[0][1]  # a name is typed plainly
    assert errors[2][1].startswith("kind must be")


def test_a_name_with_both_kinds_of_quotes_is_written_back() -> None:
    """A player who names a unit with both kinds of quotes (and a backslash) does not stop the
    game's forces from being written out: the value is written with escapes and read back."""
    system, state = fresh("asl")
    name, weapon = "x\"y'z", 'it\'s \\ "MG"'
    outcome, errors = check_setup(
        system,
        state,
        [
            ("1", AddUnit(name=name, side="Axis", kind="squad")),
            ("2", AddWeapon(name=weapon, side="Axis", kind="sw_mg", owner=name)),
        ],
    )
    assert errors == []
    written = write_scenario(system, outcome.state)
    assert set_up("asl", written) == outcome.state
    setup = make_setup([AddUnit(name=name, side="Axis", kind="squad")])
    assert "x\\\"y'z" in setup_text(setup.model_dump(mode="json"))


def test_a_setup_concerns_the_sides_its_commands_concern() -> None:
    system, state = fresh("asl")
    own = make_setup(
        [
            AddUnit(name="A", side="Axis", kind="squad"),
            AddWeapon(name="LMG", side="Axis", kind="sw_mg", owner="A"),
        ]
    )
    assert system.concerned_sides(state, own) == {"Axis"}
    assert system.named_sides(state, own) == {"Axis"}
    both = make_setup(
        [AddUnit(name="A", side="Axis", kind="squad"), SetLevel(side="Axis", level=1)]
    )
    assert system.concerned_sides(state, both) == {"Axis", "Allied"}
    assert system.acting_side(state, own) is None
    assert isinstance(system.parse_action(own.model_dump(mode="json")), Setup)


def test_the_forces_of_a_game_in_play_are_written_as_they_stand() -> None:
    """A malfunctioned MG and a broken squad are set up so in a new game."""
    system, state = fresh("asl")
    state = set_up(
        "asl",
        "unit add name:A side:Axis kind:squad\nweapon add name:LMG side:Axis "
        "kind:sw_mg b:10 owner:A",
    )
    state = system.run(
        state,
        system.parse_action({"action": "asl.phase", "side": "Axis", "phase": "pfph"}),
        ScriptedDice([]),
    ).state
    state = system.run(state, Fire(weapons=("LMG",)), ScriptedDice([6, 5])).state
    state = system.run(
        state,
        system.parse_action({"action": "asl.unit.set", "name": "A", "status": "broken"}),
        ScriptedDice([]),
    ).state
    written = write_scenario(system, state)
    assert "unit add name:A side:Axis kind:squad broken:true" in written
    assert "weapon add name:LMG side:Axis kind:sw_mg b:10 owner:A status:malfunctioned" in written
    again = set_up("asl", written)
    assert system.forces(again) == system.forces(state)


_NAME = st.text(alphabet="ABCxyz 0123456789-;#'\"\\", min_size=1, max_size=8).filter(
    lambda s: s.strip() == s and not s.startswith("#")
)


@st.composite
def asl_forces(draw: st.DrawFn) -> list[BaseModel]:
    names = draw(st.lists(_NAME, min_size=1, max_size=6, unique_by=str.lower))
    actions: list[BaseModel] = []
    if draw(st.booleans()):
        actions.append(SetLevel(side="Axis", level=draw(st.integers(0, 5))))
    if draw(st.booleans()):
        side = draw(st.sampled_from(["Axis", "Allied"]))
        actions.append(SetSan(side=side, san=draw(st.integers(0, 7))))
    units = names[: draw(st.integers(1, len(names)))]
    for name in units:
        kind = draw(st.sampled_from(["squad", "half_squad", "crew", "leader", "hero"]))
        chain = st.lists(st.sampled_from(["4-4-7", "2-3-7"]), max_size=2)
        actions.append(
            AddUnit(
                name=name,
                side=draw(st.sampled_from(["Axis", "Allied"])),
                kind=kind,
                quality=draw(st.sampled_from(["", "4-6-7", "9-1", "SS 6-5-8"])),
                # A19.13: only a MMC has a replacement chain; A24.1: a squad's SMOKE exponent
                replaced_by=tuple(draw(chain)) if kind not in ("leader", "hero") else (),
                nationality=draw(st.sampled_from([None, "Hungarian", "German"])),
                elite=draw(st.booleans()),
                smoke=draw(st.integers(0, 6)) if kind in ("squad", "half_squad") else 0,
                broken=draw(st.sampled_from([None, True, False])),
                cx=draw(st.booleans()),
            )
        )
    sides = {a.name: a.side for a in actions if isinstance(a, AddUnit)}
    for name in names[len(units) :]:
        owner = draw(st.sampled_from([None, *units]))
        kind = draw(st.sampled_from(["sw_mg", "sw_other", "gun", "dc"]))
        b = draw(st.sampled_from([None, 10, 11, 12]))
        dm = draw(st.sampled_from([None, True])) if kind in ("sw_other", "gun") else None
        actions.append(
            AddWeapon(
                name=name,
                side=sides[owner] if owner else draw(st.sampled_from(["Axis", "Allied"])),
                kind=kind,
                b=b,
                x=draw(st.sampled_from([None, 12])) if b is None or b <= 12 else None,
                rof=draw(st.sampled_from([None, 1, 3])) if kind != "dc" else None,
                repair=draw(st.sampled_from([None, 2, 6])),
                owner=owner,
                status=draw(st.sampled_from([None, "ok", "malfunctioned"])),
                low_ammo=draw(st.sampled_from([None, True])) if kind == "gun" else None,
                special_ammo=("APCR:5",) if kind == "gun" and draw(st.booleans()) else (),
                dm=dm,
                mortar=dm is True,  # A9.8: of these kinds only a mortar is dismantled
            )
        )
    return actions


@settings(max_examples=40, deadline=None)
@given(asl_forces())
def test_asl_forces_round_trip(actions: list[BaseModel]) -> None:
    system, state = fresh("asl")
    outcome, errors = check_setup(system, state, [("drawn", a) for a in actions])
    assert errors == []
    written = write_scenario(system, outcome.state)
    assert set_up("asl", written) == outcome.state


def test_the_console_reads_a_scenario_file_as_discord_reads_an_attachment(
    tmp_path: Path,
) -> None:
    from bot.console import console_file
    from bot.errors import BadCommand

    good = tmp_path / "s.txt"
    good.write_bytes("\ufeffunit add name:Bär side:Axis kind:squad\n".encode())
    assert console_file(str(good)).text == "unit add name:Bär side:Axis kind:squad\n"
    big = tmp_path / "big.txt"
    big.write_bytes(b"#" * (64 * 1024 + 1))
    with pytest.raises(InvalidInput, match="65537 bytes; a file may have at most 65536"):
        console_file(str(big))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Bär".encode("latin-1"))
    with pytest.raises(InvalidInput, match="not UTF-8"):
        console_file(str(latin))
    with pytest.raises(BadCommand, match=r"Cannot read the file .*: No such file"):
        console_file(str(tmp_path / "missing.txt"))
    # found by trying it: an empty file: said "Cannot read the file : Is a directory."
    with pytest.raises(BadCommand, match=r"^Give the file's path, like file:docs/scenarios"):
        console_file("  ")
    with pytest.raises(BadCommand, match=r"is a folder; give the path of a file in it\.$"):
        console_file(str(tmp_path))


@st.composite
def ocs_forces(draw: st.DrawFn) -> list[BaseModel]:
    from rules_core.ocs.actions import DumpAdd
    from rules_core.ocs.actions import UnitAdd as OcsUnit

    hexes = st.sampled_from(["0905", "1006", "1207", "2010"])
    actions: list[BaseModel] = [
        DumpAdd(
            side=draw(st.sampled_from(["Axis", "Soviet"])),
            hex=draw(hexes),
            amount=f"{draw(st.integers(1, 40))} T",
        )
        for _ in range(draw(st.integers(0, 4)))
    ]
    names = draw(st.lists(_NAME, max_size=5, unique_by=str.casefold))
    for name in names:
        kind = draw(st.sampled_from(["combat", "HQ", "transport"]))
        actions.append(
            OcsUnit(
                name=name,
                side=draw(st.sampled_from(["Axis", "Soviet"])),
                steps=draw(st.integers(0, 4)),
                re=draw(st.sampled_from(["1", "1/2", "2 1/2", "0"])),
                ar=draw(st.integers(0, 5)),
                kind=kind,
                formation=draw(st.sampled_from([None, "21 Pz"])),
                hex=draw(st.none() | hexes),
                arms=draw(st.sampled_from(["armor", "mech", "other"])),
                movement=draw(st.sampled_from(["leg", "truck", "track"])),
                mode=draw(st.sampled_from(["combat", "move", "strat", "reserve", "DG"])),
                internals=draw(st.sampled_from(["NONE", "LOW", "EXHAUSTED"])),
                out_of_supply=draw(st.booleans()),
                load=f"{draw(st.integers(0, 9))} T" if kind == "transport" else "0 T",
                throw_range=draw(st.integers(0, 12)) if kind == "HQ" else 0,
                reinforcement=draw(st.booleans()),
            )
        )
    return actions


@settings(max_examples=30, deadline=None)
@given(ocs_forces())
def test_ocs_forces_round_trip(actions: list[BaseModel]) -> None:
    system, state = fresh("ocs")
    outcome, errors = check_setup(system, state, [("drawn", a) for a in actions])
    assert errors == []
    assert set_up("ocs", write_scenario(system, outcome.state)) == outcome.state


@st.composite
def cwb_forces(draw: st.DrawFn) -> list[BaseModel]:
    from rules_core.cwb.actions import Map, Params, UnitSet, WagonAdd
    from rules_core.cwb.actions import UnitAdd as CwbUnit

    sides = st.sampled_from(["Union", "Confederate"])
    hexes = st.none() | st.builds(lambda c, r: f"{c},{r}", st.integers(0, 9), st.integers(0, 9))
    actions: list[BaseModel] = []
    if draw(st.booleans()):
        side = draw(st.none() | sides)
        rounding = st.sampled_from([None, "ceil", "round", "floor"])
        actions.append(
            Params(
                side=side,
                ammo_loss=draw(st.integers(0, 100)),
                artillery_ammo=draw(st.sampled_from([None, "normal", "low", "out"])),
                isolation=draw(st.sampled_from([None, True, False])),
                # the wagon rounding is the whole game's, never one side's (CWB Supply)
                wagon_rounding=draw(rounding) if side is None else None,
            )
        )
    if draw(st.booleans()):
        actions.append(Map(columns=10, rows=10, blocked=("3/4",), sources=("0/0", "9/9")))
    names = draw(st.lists(_NAME, max_size=6, unique_by=str.casefold))
    units = names[: len(names) // 2]
    for name in units:
        kind = draw(st.sampled_from(["infantry", "cavalry", "artillery"]))
        actions.append(
            CwbUnit(
                name=name,
                side=draw(sides),
                men=draw(st.integers(1, 900)),
                type=kind,
                # a battery's own level is kept only under the Isolation rule (CWB Supply)
                ammo=draw(st.sampled_from(["normal", "low", "out"]))
                if kind != "artillery"
                else "normal",
                hex=draw(hexes),
            )
        )
    for name in names[len(units) :]:
        actions.append(
            WagonAdd(
                name=name, side=draw(sides), strength=draw(st.integers(1, 90)), hex=draw(hexes)
            )
        )
    actions += [UnitSet(name=name, routed=True) for name in units if draw(st.booleans())]
    return actions


@settings(max_examples=30, deadline=None)
@given(cwb_forces())
def test_cwb_forces_round_trip(actions: list[BaseModel]) -> None:
    system, state = fresh("cwb")
    outcome, errors = check_setup(system, state, [("drawn", a) for a in actions])
    assert errors == []
    assert set_up("cwb", write_scenario(system, outcome.state)) == outcome.state


async def test_forces_show_what_another_process_set_up(tmp_path: Path) -> None:
    """/game forces of a process that cached the game shows a set-up another process (a
    console) logged since."""
    from bot.models import Actor, Place
    from bot.service.game_service import GameService
    from bot.service.systems import InstalledSystems
    from bot.storage import open_repository
    from bot.table import commands as gc

    place, referee = Place(guild_id=1, channel_id=2), Actor(user_id=1, name="ref")
    first = await open_repository(tmp_path / "r.db")
    second = await open_repository(tmp_path / "r.db")
    try:
        bot = GameService(first, InstalledSystems())
        console = GameService(second, InstalledSystems())
        await bot.handle(place, referee, "n", gc.GameNew(system="asl", title="Hill 621"))
        before = await bot.handle(place, referee, "f1", gc.GameForces())
        assert "nothing is set up yet" in before.fields[0][1]
        await console.handle(
            place, referee, "s", gc.GameSetup(text="unit add name:A side:Axis kind:squad")
        )
        after = await bot.handle(place, referee, "f2", gc.GameForces())
        assert after.fields[0][1].splitlines()[1:] == ["unit add name:A side:Axis kind:squad"]
        assert after.file is not None and after.file.filename == "hill-621-setup.txt"
    finally:
        await first.close()
        await second.close()


def test_a_forged_set_up_is_caught_by_both_verifiers(tmp_path: Path) -> None:
    """A player's own set-up, edited to slip in the other side's unit and re-hashed: the full
    verifier replays it and finds the sides (or the outcome) wrong; with the sides corrected
    too, the standard-library verifier finds the player holds no seat of the other side."""
    import asyncio

    from bot.log.verify import verify_text
    from bot.service.systems import InstalledSystems
    from tests.bot.test_verify_forgery import ALICE, BOB, REF, play, reseal, standalone

    lines = [
        (REF, '/game new system:asl sides:"Axis,Allied" title:"Set-up forgery"'),
        (ALICE, "/game seat side:Axis"),
        (BOB, "/game seat side:Allied"),
        (ALICE, '/game setup text:"unit add name:A1 side:Axis kind:squad quality:4-6-7"'),
    ]
    text = asyncio.run(play(tmp_path / "f.db", lines))
    assert verify_text(text, InstalledSystems()).ok
    assert standalone(text, tmp_path).returncode == 0

    def slip_in(entries: list[dict[str, Any]], sides: list[str]) -> None:
        setup = [e for e in entries if e["kind"] == "action"][-1]
        assert setup["action"]["action"] == "game.setup" and setup["sides"] == ["Axis"]
        setup["action"]["actions"].append(
            {"action": "asl.unit.add", "name": "R9", "side": "Allied", "kind": "squad"}
        )
        setup["sides"] = sides

    kept = reseal(text, lambda entries: slip_in(entries, ["Axis"]))
    report = verify_text(kept, InstalledSystems())
    assert not report.ok and "concerns Allied, Axis, the log says Axis" in report.message
    honest = reseal(text, lambda entries: slip_in(entries, ["Allied", "Axis"]))
    run = standalone(honest, tmp_path)
    assert run.returncode != 0 and "alice holds no seat of Allied" in run.stdout
    assert not verify_text(honest, InstalledSystems()).ok


def test_a_unit_holding_weapons_keeps_its_side_so_its_forces_read_back() -> None:
    """Found by trying it: ``unit add update:true`` moved a unit to the other side with its
    weapons still the old side's (an Axis LMG held by an Allied squad), and /game forces then
    wrote a scenario /game setup refuses. A weapon is its possessor's side's (A9.7)."""
    system, state = fresh("asl")
    actions, errors = read(
        "asl",
        "unit add name:L side:Axis kind:leader quality:8-1\n"
        "weapon add name:LMG side:Axis kind:sw_mg owner:L\n"
        "unit add name:L side:Allied kind:squad update:true\n"
        "unit add name:E side:Axis kind:squad\n"
        "unit add name:E side:Allied kind:squad update:true\n",  # holds nothing: it may move
    )
    assert errors == []
    outcome, errors = check_setup(system, state, actions)
    assert errors == [
        (
            "line 3",
            "L holds LMG, which stays Axis; give it to another Axis unit (weapon add "
            "update:true owner:…) before moving L to Allied.",
        )
    ]
    assert system.rules_version >= 2  # a ruling changed (docs/EXPORT.md, Rules versions)
    moved = [a for where, a in actions if where != "line 3"]
    outcome, errors = check_setup(system, state, [("", a) for a in moved])
    assert errors == []
    assert set_up("asl", write_scenario(system, outcome.state)) == outcome.state
    _, errors = check_setup(
        system, outcome.state, [("", AddWeapon(name="MG", side="Axis", kind="sw_mg", owner="E"))]
    )
    assert errors == [("", "E is not an Axis unit.")]


def test_a_file_of_thousands_of_commands_is_refused_before_any_is_read() -> None:
    """Found by trying it as a hostile player: 64 KiB of ``x;`` is 32,768 commands, each read
    (and refused) one by one, and the refusal never said the scenario held too many."""
    text = "x;" * (32 * 1024)
    actions, errors = read("asl", text)
    assert actions == []
    assert errors == [("the scenario", "it holds 32768 commands; at most 500.")]
    message = SetupRefused(errors).user_message
    assert message.endswith("the scenario: it holds 32768 commands; at most 500.")
