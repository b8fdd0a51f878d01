"""Declarations of the table commands (``/game …``, ``/roll``, ``/stats``).

They follow the same convention as the game systems' action models (see ``rules_core/system.py``):
the ``action`` literal is the command path, the docstring's first line is the help text, each
field is an option with its description, and ``rolls_dice`` / ``read_only`` say how the service
treats the command. ``bot/commands`` builds the console's and Discord's commands from them.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.models import AttachedFile, UserRef

MAX_SEQ = 2**53
"""The largest sequence number an option may name (JSON's exact integers; SQLite's fit easily)."""


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True)
    rolls_dice: ClassVar[bool] = False
    read_only: ClassVar[bool] = False
    referee_only: ClassVar[bool] = False


class GameNew(_Command):
    """Start this channel's game and post the dice commitment."""

    action: Literal["game.new"] = "game.new"
    system: str = Field(
        description="The game system",
        json_schema_extra={"autocomplete": "systems", "choices_from": "systems"},
    )
    title: str = Field(default="", max_length=100, description="A title for the game")
    sides: tuple[str, ...] = Field(
        default=(), description='The sides, comma-separated (default: "Axis,Allied")'
    )
    options: str = Field(
        default="",
        max_length=1000,
        description='Scenario options: "key=value, ..." or a JSON object',
    )
    dice: Literal["server", "beacon"] | None = Field(
        default=None,
        description=(
            "server (the bot's seed) or beacon (also a public drand round); "
            "the bot sets the default"
        ),
    )


class GameSeat(_Command):
    """Take a seat for a side; a referee may seat someone else."""

    action: Literal["game.seat"] = "game.seat"
    side: str = Field(description="The side to play", json_schema_extra={"autocomplete": "side"})
    player: UserRef | None = Field(default=None, description="Seat this player (referees only)")


class GameRefereeAdd(_Command):
    """Name a referee: without a seat they act for any side, void entries and end the game."""

    action: Literal["game.referee.add"] = "game.referee.add"
    referee_only: ClassVar[bool] = True
    user: UserRef = Field(description="The new referee")


class GameRefereeRemove(_Command):
    """Remove a referee of this game."""

    action: Literal["game.referee.remove"] = "game.referee.remove"
    referee_only: ClassVar[bool] = True
    user: UserRef = Field(description="The referee to remove")


class GameStatus(_Command):
    """Sides, seats, referees, the log head and the dice commitment."""

    action: Literal["game.status"] = "game.status"
    read_only: ClassVar[bool] = True


class GameLog(_Command):
    """The last entries of the game log, each with its sequence number."""

    action: Literal["game.log"] = "game.log"
    read_only: ClassVar[bool] = True
    last: int = Field(default=10, ge=1, le=50, description="How many entries to show")
    before: int | None = Field(
        default=None,
        ge=2,
        le=MAX_SEQ,
        description="Only entries before this entry number (older pages)",
    )


class GameSeed(_Command):
    """Add your own seed phrase to every later roll."""

    action: Literal["game.seed"] = "game.seed"
    phrase: str = Field(min_length=1, max_length=200, description="Any text you like")


class GameNotices(_Command):
    """Turn notices on or off: a phase change mentions the player who must act next."""

    action: Literal["game.notices"] = "game.notices"
    on: bool = Field(default=True, description="true: mention the next player at each phase change")


class GameBoard(_Command):
    """Post the game's status board here, kept up to date after every action; on:false stops it."""

    action: Literal["game.board"] = "game.board"
    on: bool = Field(
        default=True, description="true: post the board and keep it updated; false: stop updating"
    )


class GameResult(_Command):
    """The game's result for the league: the other side confirms it; naming them winner concedes."""

    action: Literal["game.result"] = "game.result"
    winner: str = Field(
        description="The winning side, or draw", json_schema_extra={"autocomplete": "side"}
    )
    scenario: str = Field(
        min_length=1, max_length=20, description="The scenario's id, as published: FT91, J76, AP86"
    )
    attacker: str = Field(
        description="The side that attacked in the scenario",
        json_schema_extra={"autocomplete": "side"},
    )
    tournament: str = Field(
        default="", max_length=40, description="The league or tournament id (its results file)"
    )
    round: int = Field(default=1, ge=1, le=999, description="The round of the tournament")


class GameList(_Command):
    """The server's active games, by player."""

    action: Literal["game.list"] = "game.list"
    read_only: ClassVar[bool] = True


class GameLeague(_Command):
    """Referees: a tournament's results as the ASL Player Ratings CSV, with every game's export."""

    action: Literal["game.league"] = "game.league"
    read_only: ClassVar[bool] = True
    tournament: str = Field(min_length=1, max_length=40, description="The tournament id")


class GameTimes(_Command):
    """Each seat's response times: how long its player takes to answer the other side."""

    action: Literal["game.times"] = "game.times"
    read_only: ClassVar[bool] = True
    scope: Literal["game", "server"] = Field(
        default="game",
        description="game: this channel's game; server: every active game here (organisers)",
    )


class GameRotate(_Command):
    """Referee: reveal the current dice seed and commit a new one."""

    action: Literal["game.rotate"] = "game.rotate"
    referee_only: ClassVar[bool] = True


class GameVoid(_Command):
    """Referee: cancel an entry by a void entry, state rebuilt (seated: the other side confirms)."""

    action: Literal["game.void"] = "game.void"
    referee_only: ClassVar[bool] = True
    entry: int = Field(ge=1, le=MAX_SEQ, description="The sequence number of the entry to cancel")
    reason: str = Field(min_length=1, max_length=200, description="Why it is cancelled")


class GameConfirm(_Command):
    """Agree to a proposal of the other side (set-up, a result, a playing referee's action)."""

    action: Literal["game.confirm"] = "game.confirm"
    entry: int = Field(ge=1, le=MAX_SEQ, description="The sequence number of the proposal")


class GameDecline(_Command):
    """Refuse a proposal waiting for your side (a result: dispute it), or withdraw your own."""

    action: Literal["game.decline"] = "game.decline"
    entry: int = Field(ge=1, le=MAX_SEQ, description="The sequence number of the proposal")
    reason: str = Field(default="", max_length=200, description="Why, for the log")


class GameRule(_Command):
    """Referee without a seat: rule on a disputed result or a claim, by its entry number."""

    action: Literal["game.rule"] = "game.rule"
    referee_only: ClassVar[bool] = True
    entry: int = Field(ge=1, le=MAX_SEQ, description="The entry of the dispute or the claim")
    decision: Literal["grant", "refuse"] = Field(
        description="grant: the disputed result or the claim stands; refuse: it does not"
    )
    reason: str = Field(min_length=1, max_length=200, description="Why, for the log")


class GameExport(_Command):
    """The whole log as a file anyone can verify offline."""

    action: Literal["game.export"] = "game.export"
    read_only: ClassVar[bool] = True
    page: bool = Field(
        default=False,
        description="Also attach the verifier page: open it in a browser, drop the export in",
    )


MAX_SETUP_TEXT = 6000
"""The longest ``text:`` of ``/game setup`` (Discord's limit on a text option)."""


class GameSetup(_Command):
    """Set up a scenario in one step: set-up commands from a file or text, checked whole."""

    action: Literal["game.setup"] = "game.setup"
    file: AttachedFile | None = Field(
        default=None, description="A scenario file: one set-up command a line (UTF-8, 64 KiB)"
    )
    text: str = Field(
        default="",
        max_length=MAX_SETUP_TEXT,
        description='Or the commands here, separated by ";" (no option: a form asks for them)',
        json_schema_extra={"modal": "Set-up commands, one a line"},
    )


class GameForces(_Command):
    """This game's forces as a scenario file that /game setup takes (to reuse a set-up)."""

    action: Literal["game.forces"] = "game.forces"
    read_only: ClassVar[bool] = True


class GameEnd(_Command):
    """Referee: reveal the dice seed and close the game; it stays readable."""

    action: Literal["game.end"] = "game.end"
    referee_only: ClassVar[bool] = True


class GameCancel(_Command):
    """Referee: cancel the declaration waiting for its beacon round; nothing is rolled."""

    action: Literal["game.cancel"] = "game.cancel"
    referee_only: ClassVar[bool] = True
    reason: str = Field(min_length=1, max_length=200, description="Why it is cancelled")


DURATION_HELP = "48h, 2d, 1d 12h or 90min"


class _DeadlineOptions(_Command):
    """The options of a deadline's settings (a game's own, or a server's defaults)."""

    duration: str = Field(
        default="", max_length=40, description=f"How long a player has to answer: {DURATION_HELP}"
    )
    at: str = Field(
        default="",
        max_length=5,
        description="A clock time the deadline then moves to, like 20:00 (in the game's zone)",
    )
    zone: str = Field(
        default="", max_length=60, description="The time zone, like Europe/Paris (default UTC)"
    )
    reminders: str = Field(
        default="",
        max_length=60,
        description='Organisers: reminders at these percent of the deadline, like "50,100,200"',
    )
    extensions: int | None = Field(
        default=None, ge=0, le=20, description="Organisers: extensions each player may take a game"
    )
    silence: str = Field(
        default="",
        max_length=40,
        description="Organisers: silence after which the opponent may claim a forfeit (7d)",
    )
    alert: str = Field(
        default="",
        max_length=40,
        description="Organisers: a game waiting this long is reported to the organiser (4d)",
    )


class GameDeadlineSet(_DeadlineOptions):
    """This game's response deadline: a duration, a clock time in its zone, or off."""

    action: Literal["game.deadline.set"] = "game.deadline.set"
    off: bool = Field(default=False, description="true: this game has no deadline")


class GameDeadlineDefaults(_DeadlineOptions):
    """Organisers: this server's deadline settings for the games started from now on."""

    action: Literal["game.deadline.defaults"] = "game.deadline.defaults"
    read_only: ClassVar[bool] = True
    off: bool = Field(default=False, description="true: new games start without a deadline")


class GameDeadlinePause(_Command):
    """Pause the deadlines for a while or until a date: both players agree, or a referee."""

    action: Literal["game.deadline.pause"] = "game.deadline.pause"
    length: str = Field(default="", max_length=40, description=f"How long: {DURATION_HELP}")
    until: str = Field(
        default="",
        max_length=16,
        description="Or until when, in the game's zone: 2026-02-01 or 2026-02-01 18:00",
    )
    reason: str = Field(default="", max_length=200, description="Why, for the log")


class GameDeadlineResume(_Command):
    """End the pause now: both players agree, or a referee."""

    action: Literal["game.deadline.resume"] = "game.deadline.resume"


class GameDeadlineExtend(_Command):
    """Take one of your extensions: your deadline moves on by the game's deadline."""

    action: Literal["game.deadline.extend"] = "game.deadline.extend"


class GameDeadlineClaim(_Command):
    """Claim a forfeit: the other player has been silent past the organiser's limit."""

    action: Literal["game.deadline.claim"] = "game.deadline.claim"
    reason: str = Field(default="", max_length=200, description="What you want the referee to know")


class Notify(_Command):
    """Your turn notices, reminders and the rolls on your side by direct message, or not."""

    action: Literal["notify"] = "notify"
    read_only: ClassVar[bool] = True
    dm: bool = Field(default=True, description="true: by direct message too; false: here only")


class RollDice(_Command):
    """A logged, verifiable roll: DR (colored die first), dr, or NdS±M; by category, in batches."""

    action: Literal["roll"] = "roll"
    rolls_dice: ClassVar[bool] = True
    dice: str = Field(
        default="",
        max_length=20,
        description="DR, dr, NdS±M such as 2d6+1, or a batch like 3 DR (default: the category's)",
    )
    reason: str = Field(default="", max_length=100, description="What the roll is for")
    category: str = Field(
        default="",
        description="IFT, TH, TK, MC, Rally, CC, TC, SA, RS or your own word (for statistics)",
        json_schema_extra={"autocomplete": "category"},
    )
    count: int = Field(default=1, ge=1, le=20, description="How many rolls at once (3 for 3 DR)")


MAX_SEALED_TEXT = 1000
"""The longest sealed note (it is shown whole when revealed: a Discord field holds 1024)."""


class GameSeal(_Command):
    """Seal a hidden note (HIP, fortifications, orders): only its commitment is posted."""

    action: Literal["game.seal"] = "game.seal"
    text: str = Field(
        default="",
        max_length=MAX_SEALED_TEXT,
        description="The hidden text; the bot keeps it and reveals it at /game end",
    )
    commitment: str = Field(
        default="",
        max_length=64,
        description="Or your own commitment, 64 hex digits (docs/guide/TABLE.md): no text sent",
    )


class GameReveal(_Command):
    """Reveal a sealed note: its text is posted and checked against the commitment sealed."""

    action: Literal["game.reveal"] = "game.reveal"
    entry: int = Field(ge=1, le=MAX_SEQ, description="The entry number of the sealed note")
    text: str = Field(
        default="",
        max_length=MAX_SEALED_TEXT,
        description="Your own commitment's text (the bot's notes need none)",
    )
    salt: str = Field(
        default="", max_length=64, description="Your own commitment's salt (32 hex digits)"
    )


class Stats(_Command):
    """Dice statistics with a fairness test that accounts for sample size."""

    action: Literal["stats"] = "stats"
    read_only: ClassVar[bool] = True
    player: UserRef | None = Field(default=None, description="Only this player's rolls")
    category: str = Field(
        default="",
        description="Only rolls of this category (IFT, MC…; the bot's own IFT DRs count too)",
        json_schema_extra={"autocomplete": "category"},
    )
    scope: Literal["game", "channel", "server"] = Field(
        default="channel", description="Which rolls to count"
    )


TableCommand = Annotated[
    GameNew
    | GameSeat
    | GameRefereeAdd
    | GameRefereeRemove
    | GameStatus
    | GameLog
    | GameSeed
    | GameNotices
    | GameBoard
    | GameResult
    | GameList
    | GameLeague
    | GameTimes
    | GameRotate
    | GameVoid
    | GameConfirm
    | GameDecline
    | GameRule
    | GameExport
    | GameSetup
    | GameForces
    | GameEnd
    | GameCancel
    | GameSeal
    | GameReveal
    | GameDeadlineSet
    | GameDeadlineDefaults
    | GameDeadlinePause
    | GameDeadlineResume
    | GameDeadlineExtend
    | GameDeadlineClaim
    | Notify
    | RollDice
    | Stats,
    Field(discriminator="action"),
]

TABLE_COMMANDS: tuple[type[BaseModel], ...] = (
    GameNew,
    GameSeat,
    GameRefereeAdd,
    GameRefereeRemove,
    GameStatus,
    GameLog,
    GameSeed,
    GameNotices,
    GameBoard,
    GameResult,
    GameList,
    GameLeague,
    GameTimes,
    GameRotate,
    GameVoid,
    GameConfirm,
    GameDecline,
    GameRule,
    GameExport,
    GameSetup,
    GameForces,
    GameEnd,
    GameCancel,
    GameSeal,
    GameReveal,
    GameDeadlineSet,
    GameDeadlineDefaults,
    GameDeadlinePause,
    GameDeadlineResume,
    GameDeadlineExtend,
    GameDeadlineClaim,
    Notify,
    RollDice,
    Stats,
)
"""Every table command, in the order they are listed."""

TABLE_BY_ACTION: dict[str, type[BaseModel]] = {
    str(model.model_fields["action"].default): model for model in TABLE_COMMANDS
}
"""Every table command by its ``action`` (``game.result``): what a logged proposal names."""

__all__ = [
    "MAX_SEALED_TEXT",
    "MAX_SEQ",
    "TABLE_BY_ACTION",
    "TABLE_COMMANDS",
    "GameBoard",
    "GameCancel",
    "GameConfirm",
    "GameDeadlineClaim",
    "GameDeadlineDefaults",
    "GameDeadlineExtend",
    "GameDeadlinePause",
    "GameDeadlineResume",
    "GameDeadlineSet",
    "GameEnd",
    "GameExport",
    "GameForces",
    "GameLog",
    "GameNew",
    "GameRefereeAdd",
    "GameRefereeRemove",
    "GameReveal",
    "GameRotate",
    "GameRule",
    "GameSeal",
    "GameSeat",
    "GameSeed",
    "GameSetup",
    "GameStatus",
    "GameVoid",
    "Notify",
    "RollDice",
    "Stats",
    "TableCommand",
]
