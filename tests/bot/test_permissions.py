"""The permission matrix: every role × every state-changing command of every system, generated
from the action models, so a new command is covered the day it is declared.

A game of each installed system is set up with things of both sides (units, weapons, dumps,
wagons). For every state-changing command, instances are built from its model: one naming the
victim's things in every option that names a thing (``json_schema_extra={"autocomplete": …}``),
and one per such option naming the victim's thing there and the attacker's own things elsewhere
(``update:true`` of an enemy unit, an own weapon given to an enemy unit…). The attacker (the
other side's player), a spectator and the victim's own player run each; a *bypass* is an
instance that changed the game while concerning a side the actor does not hold. The test
asserts there are none, and that the owner is never refused for permission.
"""

from __future__ import annotations

import enum
import itertools
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from annotated_types import Ge, Le
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_id, console_user
from bot.errors import NotAReferee, NotYourSide, SeatTaken, UserError
from bot.log.verify import verify_text
from bot.models import Actor, Place, Reply, UserRef
from bot.service.game_service import GameService
from bot.service.permissions import permit, sides_as_spelled
from bot.service.systems import InstalledSystems
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from rules_core.errors import RulesError
from rules_core.scenario import command_line, is_scenario_command

PLACE = Place(guild_id=7, channel_id=70)
REFEREE = Actor(user_id=console_id("ref"), name="ref")
VICTIM = Actor(user_id=console_id("victim"), name="victim")
ATTACKER = Actor(user_id=console_id("attacker"), name="attacker")
SPECTATOR = Actor(user_id=console_id("spectator"), name="spectator")

SETUP: dict[str, tuple[tuple[str, str], list[str]]] = {
    # system: ((victim side, attacker side), set-up lines run by the referee)
    "asl": (
        ("Axis", "Allied"),
        [
            "/asl unit add name:A1 side:Axis kind:squad quality:4-6-7",
            "/asl unit add name:R1 side:Allied kind:squad quality:4-4-7",
            "/asl weapon add name:AMG side:Axis kind:sw_mg b:12 rof:1 owner:A1",
            "/asl weapon add name:RMG side:Allied kind:sw_mg b:12 rof:1 owner:R1",
            "/asl phase phase:pfph side:Axis",
        ],
    ),
    "ocs": (
        ("Axis", "Soviet"),
        [
            "/ocs unit add name:A1 side:Axis steps:2 hex:0101",
            "/ocs unit add name:S1 side:Soviet steps:2 hex:0909",
            '/ocs dump add side:Axis hex:0101 amount:"4 SP"',
            '/ocs dump add side:Soviet hex:0909 amount:"4 SP"',
        ],
    ),
    "cwb": (
        ("Union", "Confederate"),
        [
            "/cwb unit add name:U1 side:Union men:500",
            "/cwb unit add name:C1 side:Confederate men:500",
            "/cwb wagon add name:UW side:Union strength:5",
            "/cwb wagon add name:CW side:Confederate strength:5",
        ],
    ),
}
THINGS: dict[str, dict[str, dict[str, str]]] = {
    # system: kind: side: name
    "asl": {"unit": {"Axis": "A1", "Allied": "R1"}, "weapon": {"Axis": "AMG", "Allied": "RMG"}},
    "ocs": {"unit": {"Axis": "A1", "Soviet": "S1"}, "dump": {"Axis": "0101", "Soviet": "0909"}},
    "cwb": {
        "unit": {"Union": "U1", "Confederate": "C1"},
        "wagon": {"Union": "UW", "Confederate": "CW"},
    },
}


def _extra(info: FieldInfo) -> dict[str, Any]:
    return info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}


def _bare(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0]
    return annotation


def _filler(info: FieldInfo, name: str) -> Any:
    """Some valid value of a required option that names no thing."""
    kind = _bare(info.annotation)
    if typing.get_origin(kind) is Literal:
        return typing.get_args(kind)[0]
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return next(iter(kind)).value
    if kind is bool:
        return False
    if kind is int:
        low = next((m.ge for m in info.metadata if isinstance(m, Ge)), 1)
        high = next((m.le for m in info.metadata if isinstance(m, Le)), None)
        value = max(int(low), 1)  # type: ignore[call-overload]
        return min(value, int(high)) if high is not None else value  # type: ignore[call-overload]
    if typing.get_origin(kind) is tuple:
        return ("x",)
    return "1 SP" if name == "amount" else "New1"


def _thing(system: str, kind: str, side: str) -> str | None:
    if kind == "side":
        return side
    return THINGS[system].get(kind, {}).get(side)


def instances(
    system: str, model: type[BaseModel], victim: str, attacker: str
) -> Iterator[tuple[str, BaseModel]]:
    """Instances of ``model`` that name the victim's things: all at once, then one option at a
    time with the attacker's own things in the other options."""
    named = {
        name: info
        for name, info in model.model_fields.items()
        if name != "action" and isinstance(_extra(info).get("autocomplete"), str)
    }

    def build(owner_of: dict[str, str]) -> BaseModel | None:
        data: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            if name == "action":
                continue
            if name in named:
                value = _thing(system, str(_extra(info)["autocomplete"]), owner_of[name])
                if value is None:
                    if info.is_required():
                        return None
                    continue
                is_list = typing.get_origin(_bare(info.annotation)) is tuple
                data[name] = (value,) if is_list else value
            elif info.is_required():
                data[name] = _filler(info, name)
        return model.model_validate(data)

    everything = build({name: victim for name in named})
    if everything is not None:
        yield "all options name the victim's things", everything
    for name, info in named.items():
        if _extra(info).get("names_enemy"):
            continue
        owners = {other: attacker for other in named}
        owners[name] = victim
        one = build(owners)
        if one is not None:
            yield f"{name} names the victim's thing", one
    if everything is None and not named:
        built = build({})
        if built is not None:
            yield "no option names a thing", built


class Table:
    def __init__(self, service: GameService, repo: Repository, system: str) -> None:
        self.service, self.repo, self.system = service, repo, system
        self.registry = build_registry(service.systems)
        self.counter = itertools.count()

    async def line(self, actor: Actor, text: str) -> Reply:
        words, options = parse_line(text)
        request = Request(PLACE, actor, f"i{next(self.counter)}", words, options)
        return await execute(self.service, request, self.registry, console_user)

    async def act(self, actor: Actor, command: BaseModel) -> Reply:
        return await self.service.handle(PLACE, actor, f"i{next(self.counter)}", command)

    async def proposed(self, actor: Actor, command: BaseModel) -> bool:
        """Whether permission made ``command`` a proposal, which the rules then try before it is
        logged: their refusal came after permission (else permission refused it first)."""
        live = await self.service.core.load(PLACE)
        action = sides_as_spelled(live.row.table["sides"], command)
        return bool(permit(live, actor, action)[1])

    async def snapshot(self) -> tuple[int, str]:
        row = await self.repo.active_game(PLACE.guild_id, PLACE.channel_id)
        assert row is not None
        return row.head_seq, row.state_json


async def new_table(
    tmp_path: Path, system: str, *, attacker_referees: bool = False
) -> tuple[Table, str, str]:
    """A game of ``system`` with things of both sides, run by a referee without a seat; with
    ``attacker_referees``, the attacker is a referee of the game too (a referee who plays)."""
    repo = await open_repository(tmp_path / f"{system}.db")
    table = Table(GameService(repo, InstalledSystems()), repo, system)
    (victim, attacker), lines = SETUP[system]
    await table.line(REFEREE, f'/game new system:{system} sides:"{victim},{attacker}"')
    await table.line(VICTIM, f"/game seat side:{victim}")
    await table.line(ATTACKER, f"/game seat side:{attacker}")
    for text in lines:
        await table.line(REFEREE, text)
    if attacker_referees:
        await table.line(REFEREE, "/game referee add user:@attacker")
    return table, victim, attacker


STATE_CHANGING = [
    (system, model)
    for system in SETUP
    for model in InstalledSystems()[system].action_types
    if not getattr(model, "read_only", False)
]


def test_every_installed_system_is_in_the_matrix() -> None:
    assert set(InstalledSystems()) == set(SETUP)


ROLES = ("player", "referee who plays")
"""The attacker's roles: the other side's player, and a referee of the game holding that seat."""


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("system", "model"), STATE_CHANGING, ids=[f"{s}:{m.__name__}" for s, m in STATE_CHANGING]
)
async def test_no_player_acts_on_the_other_sides_things(
    tmp_path: Path, system: str, model: type[BaseModel], role: str
) -> None:
    """A player (and a spectator) is refused or may only propose; a referee who plays may only
    propose, or is refused: neither changes the game alone."""
    table, victim, attacker = await new_table(
        tmp_path, system, attacker_referees=role == "referee who plays"
    )
    cases = list(instances(system, model, victim, attacker))
    assert cases, f"{model.__name__}: no instance could be built"
    bypasses: list[str] = []
    actors = (ATTACKER, SPECTATOR) if role == "player" else (ATTACKER,)
    try:
        for why, command in cases:
            for actor in actors:
                before = await table.snapshot()
                try:
                    reply = await table.act(actor, command)
                except (NotYourSide, NotAReferee):
                    pass
                except (UserError, RulesError) as exc:
                    if not await table.proposed(actor, command):
                        bypasses.append(
                            f"{actor.name}, {why}: refused by the rules, not first by "
                            f"permission ({exc})"
                        )
                else:
                    if reply.command != "/game propose" or actor is SPECTATOR:
                        bypasses.append(f"{actor.name}, {why}: accepted ({reply.title})")
                    elif reply.seq is not None:  # withdrawn: the same proposal again is refused
                        await table.act(actor, gc.GameDecline(entry=reply.seq))
                after = await table.snapshot()
                if after[1] != before[1]:
                    bypasses.append(f"{actor.name}, {why}: changed the state")
        # the victim's own player is never refused for permission on their own things
        _, own = cases[0]
        try:
            await table.act(VICTIM, own)
        except (NotYourSide, NotAReferee) as exc:
            bypasses.append(f"the owner was refused: {exc}")
        except (UserError, RulesError):
            pass
    finally:
        await table.repo.close()
    assert bypasses == []


async def test_the_issues_examples_are_refused_or_proposed(tmp_path: Path) -> None:
    table, _, _ = await new_table(tmp_path, "asl")
    try:
        before = await table.snapshot()
        for text in (
            "/asl unit add name:A1 side:Allied kind:squad update:true",
            "/asl unit add name:A1 side:Axis kind:squad broken:true update:true",
            "/asl weapon add name:AMG side:Allied kind:sw_mg update:true",
            "/asl weapon remove name:AMG",
            "/asl phase phase:mph side:Axis",
            "/asl phase phase:rph side:Allied",
        ):
            with pytest.raises(NotYourSide):
                await table.line(ATTACKER, text)
        proposal = await table.line(ATTACKER, "/asl level side:Axis level:5")
        assert proposal.command == "/game propose"
        assert (await table.snapshot())[1] == before[1]
        # the other side's player confirms: the level is set, logged as agreed
        with pytest.raises(NotYourSide):
            await table.line(ATTACKER, f"/game confirm entry:{proposal.seq}")
        done = await table.line(VICTIM, f"/game confirm entry:{proposal.seq}")
        assert done.command == "/asl level" and done.actor == "victim"
        status = await table.line(SPECTATOR, "/game status")
        assert "Axis: Ammunition Shortage level 5" in dict(status.fields)["Table"]
        # the player whose turn it is advances the phase
        assert (await table.line(VICTIM, "/asl phase phase:mph side:Axis")).command == "/asl phase"
        # the agreed entry verifies: its proposal, proposer and command are checked
        export = await table.line(REFEREE, "/game export")
        assert export.file is not None
        report = verify_text(export.file.content.decode("utf-8"), InstalledSystems())
        assert report.ok, report.message
    finally:
        await table.repo.close()


async def test_cwb_parameters_without_a_side_need_both_players(tmp_path: Path) -> None:
    table, _, _ = await new_table(tmp_path, "cwb")
    try:
        before = await table.snapshot()
        for actor, loss in ((ATTACKER, 100), (VICTIM, 90)):  # the same twice: one proposal
            reply = await table.line(actor, f"/cwb params ammo-loss:{loss}")
            assert reply.command == "/game propose"
        assert (await table.snapshot())[1] == before[1]
        assert (await table.line(REFEREE, "/cwb params ammo-loss:5")).command == "/cwb params"
    finally:
        await table.repo.close()


# --- table commands: who may do what, declared once; a new command must be declared here ----

REFEREE_ONLY: set[type[BaseModel]] = {
    gc.GameRefereeAdd,
    gc.GameRefereeRemove,
    gc.GameRotate,
    gc.GameEnd,
    gc.GameCancel,
}
ANY_PLAYER: set[type[BaseModel]] = {gc.GameSeed, gc.RollDice, gc.GameNotices, gc.GameBoard}
OWN_RULES: set[type[BaseModel]] = {
    gc.GameNew,
    gc.GameSeat,
    gc.GameVoid,
    gc.GameConfirm,
    gc.GameResult,  # tests/bot/test_league.py: players and referees record, others are refused
    gc.GameSetup,  # below: each of its commands as that command would be (own, proposed, refused)
    gc.GameDecline,  # tests/bot/test_decline.py: the other side, the proposer or a referee
    gc.GameSeal,  # tests/bot/test_sealed_notes.py: a player or a referee seals their own note
    gc.GameReveal,  # tests/bot/test_sealed_notes.py: only its sealer, not even a referee
    gc.GameRule,  # below and tests/bot/test_results.py: a referee without a seat only
    # tests/bot/test_deadlines.py: a deadline, a pause or its end is proposed by a player and
    # confirmed by the other (a referee without a seat decides alone); an extension is the
    # player's to act, a forfeit claim the other player's (a referee without a seat rules on it)
    gc.GameDeadlineSet,
    gc.GameDeadlinePause,
    gc.GameDeadlineResume,
    gc.GameDeadlineExtend,
    gc.GameDeadlineClaim,
}
"""Checked by their own tests below (a new game, seats, voids and confirmations)."""


def test_every_state_changing_table_command_is_in_the_matrix() -> None:
    changing = {m for m in gc.TABLE_COMMANDS if not getattr(m, "read_only", False)}
    assert changing == REFEREE_ONLY | ANY_PLAYER | OWN_RULES


BY_ROLE = sorted(REFEREE_ONLY | ANY_PLAYER, key=lambda model: model.__name__)


@pytest.mark.parametrize("model", BY_ROLE)
async def test_table_commands_by_role(tmp_path: Path, model: type[BaseModel]) -> None:
    table, _, _ = await new_table(tmp_path, "asl")
    data: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if name != "action" and info.is_required():
            data[name] = (
                UserRef(id=5, name="newref").model_dump()
                if info.annotation is UserRef
                else ("DR" if name == "dice" else "words")
            )
    command = model.model_validate(data)
    try:
        refused: list[str] = []
        for actor in (SPECTATOR, ATTACKER, VICTIM):
            before = await table.snapshot()
            try:
                await table.act(actor, command)
                allowed = True
            except (NotYourSide, NotAReferee):
                allowed = False
            if not allowed:
                refused.append(actor.name)
                assert await table.snapshot() == before
        expected = ["spectator", "attacker", "victim"] if model in REFEREE_ONLY else ["spectator"]
        assert refused == expected
        try:
            await table.act(REFEREE, command)  # a referee may (the rules may still refuse)
        except (NotYourSide, NotAReferee):
            raise
        except (UserError, RulesError):
            pass
    finally:
        await table.repo.close()


async def test_seats_and_voids_by_role(tmp_path: Path) -> None:
    table, victim, _ = await new_table(tmp_path, "asl")
    try:
        with pytest.raises(SeatTaken):
            await table.line(ATTACKER, f"/game seat side:{victim}")
        with pytest.raises(NotAReferee):
            await table.line(ATTACKER, f"/game seat side:{victim} player:@spectator")
        shot = await table.line(VICTIM, "/roll dice:DR reason:mine")
        with pytest.raises(NotAReferee):
            await table.line(ATTACKER, f"/game void entry:{shot.seq} reason:x")
        # a referee who plays the roller's side: the void waits for the other side
        await table.line(REFEREE, "/game referee add user:@victim")
        proposal = await table.line(VICTIM, f"/game void entry:{shot.seq} reason:unlucky")
        assert proposal.command == "/game propose"
        with pytest.raises(NotYourSide):
            await table.line(VICTIM, f"/game confirm entry:{proposal.seq}")
        with pytest.raises(NotYourSide):
            await table.line(SPECTATOR, f"/game confirm entry:{proposal.seq}")
        void = await table.line(ATTACKER, f"/game confirm entry:{proposal.seq}")
        assert void.title == f"Entry {shot.seq} is void: unlucky"
        status = dict((await table.line(SPECTATOR, "/game status")).fields)
        assert status["Voids by"] == "victim 1"
        # a referee without a seat voids alone
        again = await table.line(VICTIM, "/roll dice:DR")
        assert (await table.line(REFEREE, f"/game void entry:{again.seq} reason:x")).seq
    finally:
        await table.repo.close()


async def test_a_referee_who_plays_acts_alone_only_for_their_own_side(tmp_path: Path) -> None:
    """The attacker is a referee of the game as well as the Allied player: what touches the
    other side — its seat, a void, naming or removing a referee, ending the game, a referee's
    correction even of their own units, a result — is only proposed, and the victim confirms or
    declines; a ruling is refused; what is theirs alone, and a rotation, they do alone."""
    table, victim, _ = await new_table(tmp_path, "asl", attacker_referees=True)
    try:
        before = await table.snapshot()
        shot = await table.line(VICTIM, "/roll dice:DR reason:mine")
        proposed = [
            f"/game seat side:{victim}",
            f"/game seat side:{victim} player:@spectator",
            f"/game void entry:{shot.seq} reason:unlucky",
            "/game referee add user:@spectator",
            "/game referee remove user:@ref",
            "/game end",
            "/asl weapon add name:RMG side:Allied kind:sw_mg b:12 rof:1 owner:R1 "
            "status:malfunctioned update:true correction:true",
            "/asl unit add name:A1 side:Axis kind:squad broken:true update:true",
            "/game result winner:Allied scenario:FT91 attacker:Allied",
        ]
        entries = []
        for text in proposed:
            reply = await table.line(ATTACKER, text)
            assert reply.command == "/game propose", (text, reply.title)
            entries.append(reply.seq)
        assert (await table.snapshot())[1] == before[1]
        status = dict((await table.line(SPECTATOR, "/game status")).fields)
        assert status["Who acts for whom"].splitlines() == [
            "victim: Axis",
            "attacker: Allied; Axis only by proposals its player confirms (a referee who plays)",
            "ref: every side (a referee without a seat)",
            "server administrators and the referee role: every side, while without a seat",
        ]
        with pytest.raises(NotYourSide):  # nobody confirms their own proposal
            await table.line(ATTACKER, f"/game confirm entry:{entries[0]}")
        with pytest.raises(NotYourSide):  # a spectator is not the other side
            await table.line(SPECTATOR, f"/game confirm entry:{entries[2]}")
        with pytest.raises(NotAReferee):
            await table.line(ATTACKER, "/game rule entry:3 decision:grant reason:x")
        # the victim confirms the void and the correction, declines the seat
        void = await table.line(VICTIM, f"/game confirm entry:{entries[2]}")
        assert void.title == f"Entry {shot.seq} is void: unlucky" and void.actor == "victim"
        fixed = await table.line(VICTIM, f"/game confirm entry:{entries[6]}")
        assert fixed.command == "/asl weapon add" and fixed.actor == "victim"
        declined = await table.line(VICTIM, f"/game decline entry:{entries[0]} reason:mine")
        assert declined.title == f"Proposal {entries[0]} declined: mine"
        seats = dict((await table.line(SPECTATOR, "/game status")).fields)["Seats"]
        assert seats == "Axis: victim, Allied: attacker"
        # theirs alone: their own seat, their own units, a rotation, removing themselves
        assert (await table.line(ATTACKER, "/asl unit add name:R2 side:Allied kind:squad")).seq
        assert (await table.line(ATTACKER, "/game rotate")).command == "/game rotate"
        left = await table.line(ATTACKER, "/game referee remove user:@attacker")
        assert left.title == "attacker is no longer a referee"
        export = await table.line(REFEREE, "/game export")
        assert export.file is not None
        report = verify_text(export.file.content.decode("utf-8"), InstalledSystems())
        assert report.ok, report.message
    finally:
        await table.repo.close()


async def test_a_referee_who_plays_gives_their_own_seat_away_only_by_proposal(
    tmp_path: Path,
) -> None:
    """Handing their own seat to someone else would leave them a referee without a seat, who acts
    for every side and rules on disputes alone: the other side's player confirms it first, and a
    verifier refuses the handover done alone."""
    table, victim, mine = await new_table(tmp_path, "asl", attacker_referees=True)
    try:
        before = await table.snapshot()
        reply = await table.line(ATTACKER, f"/game seat side:{mine} player:@spectator")
        assert reply.command == "/game propose", reply.title
        assert (await table.snapshot())[1] == before[1]
        seats = dict((await table.line(SPECTATOR, "/game status")).fields)["Seats"]
        assert seats == f"{victim}: victim, {mine}: attacker"
        with pytest.raises(NotAReferee):  # still a referee who plays
            await table.line(ATTACKER, "/game rule entry:3 decision:grant reason:x")
        handed = await table.line(VICTIM, f"/game confirm entry:{reply.seq}")
        assert handed.command == "/game seat" and handed.actor == "victim"
        export = await table.line(REFEREE, "/game export")
        assert export.file is not None
        text = export.file.content.decode("utf-8")
        assert verify_text(text, InstalledSystems()).ok
    finally:
        await table.repo.close()


# --- /game setup: a batch is permitted as each of its commands would be --------------------

SCENARIO_COMMANDS = [
    (system, model)
    for system in SETUP
    for model in InstalledSystems()[system].action_types
    if is_scenario_command(model)
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("system", "model"),
    SCENARIO_COMMANDS,
    ids=[f"{s}:{m.__name__}" for s, m in SCENARIO_COMMANDS],
)
async def test_no_player_sets_up_the_other_sides_things(
    tmp_path: Path, system: str, model: type[BaseModel], role: str
) -> None:
    """Each set-up command naming the victim's things, sent in a scenario by the other side's
    player (or a referee who plays it), is only proposed; by a spectator, refused for permission;
    nothing changes."""
    table, victim, attacker = await new_table(
        tmp_path, system, attacker_referees=role == "referee who plays"
    )
    cases = list(instances(system, model, victim, attacker))
    assert cases
    bypasses: list[str] = []
    actors = (ATTACKER, SPECTATOR) if role == "player" else (ATTACKER,)
    try:
        for why, command in cases:
            setup = gc.GameSetup(text=f"{command_line(command)}; # {why}")
            for actor in actors:
                before = await table.snapshot()
                try:
                    reply = await table.act(actor, setup)
                except (NotYourSide, NotAReferee):
                    if actor is ATTACKER:
                        bypasses.append(f"attacker, {why}: refused, not proposed")
                except (UserError, RulesError) as exc:
                    if actor is SPECTATOR:
                        bypasses.append(f"spectator, {why}: refused by the rules first ({exc})")
                else:
                    if reply.command != "/game propose" or actor is SPECTATOR:
                        bypasses.append(f"{actor.name}, {why}: accepted ({reply.title})")
                if (await table.snapshot())[1] != before[1]:
                    bypasses.append(f"{actor.name}, {why}: changed the state")
    finally:
        await table.repo.close()
    assert bypasses == []


SCENARIO_LINES: dict[str, tuple[str, str]] = {
    # system: (the victim's own things, the attacker's things) as scenario lines
    "asl": (
        "unit add name:V2 side:Axis kind:squad quality:4-6-7; "
        "weapon add name:VMG side:Axis kind:sw_mg owner:V2",
        "unit add name:R2 side:Allied kind:squad quality:4-4-7",
    ),
    "ocs": (
        'unit add name:V2 side:Axis steps:1 hex:0102; dump add side:Axis hex:0102 amount:"1 SP"',
        "unit add name:S2 side:Soviet steps:1 hex:0808",
    ),
    "cwb": (
        "unit add name:V2 side:Union men:300; wagon add name:VW2 side:Union strength:3",
        "unit add name:C2 side:Confederate men:300",
    ),
}


@pytest.mark.parametrize("system", sorted(SCENARIO_LINES))
async def test_a_scenario_is_applied_proposed_or_refused_as_its_commands(
    tmp_path: Path, system: str
) -> None:
    table, _, _ = await new_table(tmp_path, system)
    own, theirs = SCENARIO_LINES[system]
    try:
        # a player sets up their own side's things: one entry, applied at once
        applied = await table.act(VICTIM, gc.GameSetup(text=own))
        assert applied.command == "/game setup" and applied.seq is not None
        # the other side's things in the same batch: proposed, nothing applied
        before = await table.snapshot()
        proposal = await table.act(VICTIM, gc.GameSetup(text=f"{theirs}"))
        assert proposal.command == "/game propose"
        assert (await table.snapshot())[1] == before[1]
        with pytest.raises(NotYourSide):
            await table.line(VICTIM, f"/game confirm entry:{proposal.seq}")
        done = await table.line(ATTACKER, f"/game confirm entry:{proposal.seq}")
        assert done.command == "/game setup" and done.actor == "attacker"
        # a spectator is refused before anything is read; a referee applies either side's
        with pytest.raises(NotYourSide):
            await table.act(SPECTATOR, gc.GameSetup(text="not even a command"))
        assert (await table.act(REFEREE, gc.GameSetup(text=theirs.replace("2", "3")))).seq
        # the log verifies: each batch is replayed through the rules, the agreed one too
        export = await table.line(REFEREE, "/game export")
        assert export.file is not None
        report = verify_text(export.file.content.decode("utf-8"), InstalledSystems())
        assert report.ok, report.message
        assert report.counts is not None and report.counts["actions replayed"] >= 3
    finally:
        await table.repo.close()
