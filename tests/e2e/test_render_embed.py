"""The result embed, the buttons under it and the handler's deferral, without Discord."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import discord

from bot.discord_ui.handler import DEFER_AFTER, DiscordHandler, follow_up_buttons, reply_files
from bot.models import Actor, DieView, FaceStats, OddsLine, Place, Reply, ReplyFile
from bot.render.embed import (
    DESCRIPTION_LIMIT,
    FIELD_LIMIT,
    FIELDS_LIMIT,
    TOTAL_LIMIT,
    render_embed,
    side_colour,
)
from rules_core.dice import Roll
from rules_core.outcome import Modifier, Step

IFT = Roll(label="IFT DR", kind="DR", sides=6, faces=(3, 3))


def fire_reply(**changes: object) -> Reply:
    base = Reply(
        command="/asl fire",
        title="/asl fire — Axis",
        side="Axis",
        seq=12,
        actor="alice",
        rolls=(IFT,),
        steps=(
            Step(
                rule="A7",
                text="IFT DR 6 (3,3); Final DR 8 for the IFT",
                dice=(IFT,),
                modifiers=(Modifier(label="IFT DRM", value=2),),
            ),
        ),
        facts=(("HMG", "fine"), ("ROF (HMG)", "kept")),
        dice=(
            DieView(seq=30, sides=6, face=3, label="IFT DR (colored)", epoch=2),
            DieView(seq=31, sides=6, face=3, label="IFT DR (white)", epoch=2),
        ),
        commitment="c0" * 32,
        epoch=2,
        game_id="g1",
    )
    return base.model_copy(update=changes)


def test_a_dr_shows_the_colored_die_first_and_the_final_dr_with_its_drm() -> None:
    embed = render_embed(fire_reply())
    assert embed.description == (
        "🎲 **IFT DR 6** — colored **3**, white **3** · Original DR 6 · Final DR 8"
    )
    assert embed.fields[1].value == "`A7` IFT DR 6 (3,3); Final DR 8 for the IFT [+2 IFT DRM]"
    assert embed.footer.text == f"dice #30, #31 · epoch 2 commitment {'c0' * 32} · game g1"
    assert embed.author.name == "alice"


def test_each_side_keeps_its_colour_and_the_two_usual_sides_differ() -> None:
    assert side_colour("Axis") != side_colour("Allied")
    assert side_colour("Union") != side_colour("Confederate")
    assert side_colour("Finns") == side_colour(" finns ")
    assert render_embed(fire_reply()).colour == side_colour("Axis")


def test_a_huge_result_is_cut_within_discord_limits_and_says_so() -> None:
    steps = tuple(Step(rule=f"A{i}", text="x" * 300) for i in range(60))
    facts = tuple((f"unit {i}", "y" * 200) for i in range(60))
    fields = tuple((f"field {i}", "z" * 2000) for i in range(40))
    odds = tuple(
        OddsLine(facts=((f"w{i}", "q" * 100),), numerator=1, denominator=60) for i in range(60)
    )
    rolls = tuple(Roll(label=f"dr {i}", kind="dr", sides=6, faces=(1,)) for i in range(400))
    embed = render_embed(
        fire_reply(steps=steps, facts=facts, fields=fields, odds=odds, rolls=rolls)
    )
    assert len(embed) <= TOTAL_LIMIT
    assert len(embed.description or "") <= DESCRIPTION_LIMIT
    assert len(embed.fields) <= FIELDS_LIMIT
    assert all(len(field.value or "") <= FIELD_LIMIT for field in embed.fields)
    assert "more lines" in (embed.fields[0].value or "")
    assert embed.fields[-1].name == "…"


def test_replayed_and_scripted_results_say_so() -> None:
    embed = render_embed(fire_reply(replayed=True, scripted=True))
    assert (
        embed.title
        == "[SCRIPTED DICE] #12 /asl fire — Axis (already answered; nothing rolled again)"
    )


GAME = "0123456789abcdef0123456789abcdef"


def test_a_kept_rof_offers_the_same_fire_again_and_a_malfunction_a_repair() -> None:
    options = {"weapons": ("HMG",), "drm": 2}
    (again,) = follow_up_buttons(fire_reply(game_id=GAME), ("asl", "fire"), options)
    assert again.item.custom_id == "entry:0123456789abcdef:12:again"  # the entry, not options
    assert again.item.label == "Roll again"
    broke = fire_reply(game_id=GAME, facts=(("HMG", "fine"), ("LMG", "malfunctioned")))
    (repair,) = follow_up_buttons(broke, ("asl", "fire"), options)
    assert repair.item.custom_id == "entry:0123456789abcdef:12:repair.1"  # the entry's 2nd fact
    assert repair.item.label == "Repair LMG"


def test_no_buttons_under_a_preview_or_a_repair() -> None:
    assert follow_up_buttons(fire_reply(preview=True), ("asl", "fire"), {}) == []
    repaired = fire_reply(facts=(("HMG", "malfunctioned"),))
    assert follow_up_buttons(repaired, ("asl", "repair"), {"weapon": "HMG"}) == []


def test_roll_again_is_offered_whatever_the_length_of_the_fire_options() -> None:
    """Regression: options past a custom id's 100 characters used to lose the button."""
    long = {"weapons": tuple(f"Heavy machine gun {i}" for i in range(8))}
    (again,) = follow_up_buttons(fire_reply(game_id=GAME), ("asl", "fire"), long)
    assert again.item.label == "Roll again"
    assert len(again.item.custom_id or "") <= 100


def test_an_embed_with_more_fields_than_discord_allows_says_how_many_are_left_out() -> None:
    """Regression: fields past the 25th were dropped without a word."""
    many = fire_reply(facts=(), steps=(), fields=tuple((f"#{i}", "x") for i in range(1, 38)))
    embed = render_embed(many)
    assert len(embed.fields) == FIELDS_LIMIT
    assert embed.fields[-1].name == "…"
    assert embed.fields[-1].value == "13 more parts left out (entry #12 in full: /game export)"
    full = fire_reply(facts=(), steps=(), fields=tuple((f"#{i}", "x" * 1000) for i in range(1, 7)))
    embed = render_embed(full)  # six fields of 1,000 characters: the last one goes over 6,000
    assert embed.fields[-1].value == "1 more part left out (entry #12 in full: /game export)"


def test_files_are_the_export_and_one_histogram_per_die_size() -> None:
    export = fire_reply(file=ReplyFile(filename="game-g1.jsonl", content=b"{}\n"))
    assert [f.filename for f in reply_files(export)] == ["game-g1.jsonl"]
    stats = FaceStats(
        sides=6,
        counts=(10, 10, 10, 10, 10, 10),
        chi_square=0.0,
        degrees_of_freedom=5,
        p_value=1.0,
        enough_data=True,
    )
    reply = Reply(command="/stats", title="Dice of everyone", stats=(stats,), ephemeral=True)
    (png,) = reply_files(reply)
    assert png.filename == "stats-d6.png"
    field = render_embed(reply).fields[0]
    assert field.name == "d6: 60 dice"
    assert field.value is not None and "60 rolls: χ² = 0.00" in field.value


class _Status:
    status = 400
    reason = "Bad Request"


class _Response:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.done = False
        self.acknowledged = False

    def is_done(self) -> bool:
        return self.done

    async def defer(self, *, ephemeral: bool, thinking: bool) -> None:
        if self.acknowledged:
            message = {"code": 40060, "message": "Interaction has already been acknowledged."}
            raise discord.HTTPException(cast(Any, _Status()), message)
        self.calls.append(f"defer ephemeral={ephemeral}")
        self.done = True

    async def send_message(self, **kwargs: Any) -> None:
        self.calls.append("send_message")
        self.done = True


class _Followup:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    async def send(self, **kwargs: Any) -> None:
        self.calls.append(f"followup ephemeral={kwargs['ephemeral']}")


class _User:
    id = 7
    display_name = "alice"


class _Interaction:
    """What the handler reads of a ``discord.Interaction``."""

    id = 99
    type = discord.InteractionType.application_command
    guild_id = 1
    channel_id = 2
    channel = None
    user = _User()

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.response = _Response(self.calls)
        self.followup = _Followup(self.calls)


class _SlowService:
    def __init__(self, delay: float) -> None:
        self.systems: dict[str, Any] = {}
        self.delay = delay
        self.asked: list[tuple[Place, Actor, str]] = []

    async def handle(
        self,
        place: Place,
        actor: Actor,
        interaction_id: str,
        command: Any,
        *,
        preview: bool,
        prepare: Any = None,
    ) -> Reply:
        self.asked.append((place, actor, interaction_id))
        await asyncio.sleep(self.delay)
        return Reply(command="/roll", title="2d6 = 7", seq=3)


async def test_a_slow_answer_is_deferred_first_and_sent_as_a_follow_up() -> None:
    service = _SlowService(DEFER_AFTER + 0.5)
    interaction = _Interaction()
    await DiscordHandler(service, "Referee").handle(
        cast(Any, interaction), ("roll",), {"dice": "2d6"}, False
    )
    assert interaction.calls == ["defer ephemeral=False", "followup ephemeral=False"]
    ((place, actor, key),) = service.asked
    assert (place.channel_id, actor.name, actor.is_admin, key) == (2, "alice", False, "99")


async def test_a_quick_answer_is_sent_at_once() -> None:
    interaction = _Interaction()
    await DiscordHandler(_SlowService(0), "Referee").handle(
        cast(Any, interaction), ("roll",), {"dice": "2d6"}, False
    )
    assert interaction.calls == ["send_message"]


async def test_a_redelivered_slow_command_is_answered_once() -> None:
    service = _SlowService(0)
    interaction = _Interaction()
    interaction.response.acknowledged = True  # Discord already has the first delivery's answer
    await DiscordHandler(service, "Referee").handle(
        cast(Any, interaction), ("game", "export"), {}, False
    )
    assert interaction.calls == []
    assert len(service.asked) == 1  # the service saw it (and answers a known id from its log)
