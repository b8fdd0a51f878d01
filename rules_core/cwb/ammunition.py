"""Ammunition: fire permission, the ammo-loss roll after each fire, the morale reminder.

HPS Civil War Battles, supply page, section "Supply" — cited as ``CWB Supply``:

* a unit that is Out Of Ammo cannot fire until it is resupplied; a unit that is Low On Ammo can
  only fire Defensive Fire (:data:`FIRE_PERMISSION`);
* each time an Infantry unit fires there is a chance, set by the scenario's Parameter Data, of a
  reduction in its ammunition level — rolled here as ``d(100) ≤ p``, one level per
  loss (Normal → Low → Out), for the unit types of ``cwb_ammo_loss_types`` (default infantry
  and cavalry);
* artillery fire follows its side's Ammo Level; with the Isolation Effects Optional Rule an
  Isolated battery can also become Low or Out Of Ammo — it then tracks and rolls for its own
  ammunition;
* being Low or Out Of Ammo affects morale: −1 on morale checks, the players' to apply
  (:data:`MORALE_MODIFIER`).

>>> from rules_core.dice import ScriptedDice
>>> from rules_core.cwb.state import CwbState, SideData, Unit
>>> state = CwbState(sides=(SideData(name="Union", ammo_loss_pct=4),),
...                  units=(Unit(name="1st Minnesota", side="Union", men=262),))
>>> outcome = fire(state, "1st Minnesota", "offensive", ScriptedDice([4]))
>>> outcome.state.unit("1st Minnesota").ammo.label
'Low On Ammo'
>>> outcome.explanation()[1]
'CWB Supply: Ammo loss d100 4 ≤ 4 — ammunition Normal → Low On Ammo'
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from rules_core.cwb.state import AMMO_ORDER, Ammo, CwbOutcome, CwbState, Unit, worse
from rules_core.dice import Dice, ScriptedDice
from rules_core.errors import IllegalAction
from rules_core.outcome import Fact, Modifier, Outcome, Step

FireMode = Literal["offensive", "defensive"]

RULE = "CWB Supply"
"""The HPS supply page's section that holds the ammunition and wagon rules."""

FIRE_PERMISSION: dict[Ammo, frozenset[FireMode]] = {
    Ammo.NORMAL: frozenset({"offensive", "defensive"}),
    Ammo.LOW: frozenset({"defensive"}),
    Ammo.OUT: frozenset(),
}
"""CWB Supply: which fire an ammunition level allows (Low: Defensive Fire only; Out: none)."""

MORALE_MODIFIER: dict[Ammo, int] = {Ammo.NORMAL: 0, Ammo.LOW: -1, Ammo.OUT: -1}
"""CWB Supply ("affects the Morale of the unit"): −1 on morale checks while Low or Out.

The page gives no amount; −1 is the figure HPS players' training material uses. The bot rolls
no morale check in Civil War Battles, so wherever it reports a unit's ammunition it states the
−1 as the players' to apply (:data:`MORALE_PLAYERS`)."""

MORALE_PLAYERS = "the players apply it; the bot rolls no morale check"
"""How every morale report ends: the effect is the players' to apply."""

ISOLATION_OPTION = "Isolation Effects Optional Rule"

AMMO_LOSS_LABEL = "Ammo loss d100"


def firing_ammo(state: CwbState, unit: Unit) -> Ammo:
    """The ammunition level that decides whether ``unit`` may fire (CWB Supply; isolated artillery).

    Infantry and cavalry: their own level. Artillery: the side's Ammo Level, or the worse of it
    and the battery's own level when isolated batteries track their own ammunition.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="CSA", artillery_ammo=Ammo.LOW),))
    >>> firing_ammo(state, Unit(name="Pegram", side="CSA", type="artillery", men=90)).label
    'Low On Ammo'
    """
    return ammo_source(state, unit)[0]


def ammo_source(state: CwbState, unit: Unit) -> tuple[Ammo, str]:
    """The level ``unit`` fires at and where it comes from (CWB Supply; isolated artillery).

    Infantry and cavalry: their own level. Artillery: its side's Ammo Level, unless the battery's
    own level (kept under the Isolation Effects Optional Rule, when the side uses it) is worse.

    >>> from rules_core.cwb.state import SideData
    >>> side = SideData(name="CSA", artillery_ammo=Ammo.LOW, isolation_rule=True)
    >>> state = CwbState(sides=(side,))
    >>> battery = Unit(name="Pegram", side="CSA", type="artillery", men=90)
    >>> ammo_source(state, battery)
    (<Ammo.LOW: 'low'>, "CSA's artillery Ammo Level")
    >>> ammo_source(state, battery.model_copy(update={"ammo": Ammo.OUT}))
    (<Ammo.OUT: 'out'>, 'its own level, Isolation Effects Optional Rule')
    """
    if unit.type != "artillery":
        return unit.ammo, "its own level"
    side = state.side(unit.side)
    side_level = side.artillery_ammo
    own = (
        state.isolated_artillery_own_ammo
        and side.isolation_rule
        and worse(side_level, unit.ammo) is not side_level
    )
    if own:
        return unit.ammo, f"its own level, {ISOLATION_OPTION}"
    return side_level, f"{unit.side}'s artillery Ammo Level"


def ammo_text(state: CwbState, unit: Unit) -> str:
    """``Low On Ammo`` for a unit, ``Low On Ammo (CSA's artillery Ammo Level)`` for a battery.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="CSA"),))
    >>> ammo_text(state, Unit(name="Pegram", side="CSA", type="artillery", men=90))
    "Normal (CSA's artillery Ammo Level)"
    """
    level, source = ammo_source(state, unit)
    return level.label if unit.type != "artillery" else f"{level.label} ({source})"


def rolls_for_ammo_loss(state: CwbState, unit: Unit) -> bool:
    """Whether ``unit`` rolls for ammo loss after it fires (CWB Supply; isolated artillery).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="CSA", isolation_rule=True),))
    >>> battery = Unit(name="Pegram", side="CSA", type="artillery", men=90)
    >>> rolls_for_ammo_loss(state, battery), rolls_for_ammo_loss(state, battery.model_copy(
    ...     update={"isolated": True}))
    (False, True)
    """
    if unit.type in state.ammo_loss_types:
        return True
    return (
        unit.type == "artillery"
        and unit.isolated
        and state.isolated_artillery_own_ammo
        and state.side(unit.side).isolation_rule
    )


def ammo_after_loss(ammo: Ammo) -> Ammo:
    """The level after one ammo loss: Normal → Low → Out (Out stays Out).

    >>> ammo_after_loss(Ammo.NORMAL).label, ammo_after_loss(Ammo.LOW).label
    ('Low On Ammo', 'Out Of Ammo')
    """
    index = AMMO_ORDER.index(ammo)
    return AMMO_ORDER[min(index + 1, len(AMMO_ORDER) - 1)]


def morale_modifier(state: CwbState, unit: Unit) -> Modifier | None:
    """The morale-check reminder for a Low or Out unit, or ``None`` (CWB Supply).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="Union"),))
    >>> morale_modifier(state, Unit(name="A", side="Union", men=10, ammo=Ammo.OUT)).render()
    '-1 Out Of Ammo'
    """
    ammo = firing_ammo(state, unit)
    value = MORALE_MODIFIER[ammo]
    if value == 0:
        return None
    return Modifier(label=ammo.label, value=value, rule=RULE)


def morale_text(state: CwbState, unit: Unit) -> str | None:
    """The morale effect of a Low or Out unit, stated as the players' to apply, or ``None``.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="Union"),))
    >>> morale_text(state, Unit(name="A", side="Union", men=10, ammo=Ammo.LOW))
    'morale checks −1 while Low On Ammo (the players apply it; the bot rolls no morale check)'
    """
    modifier = morale_modifier(state, unit)
    if modifier is None:
        return None
    signed = f"{modifier.value:+d}".replace("-", "−")
    return f"morale checks {signed} while {modifier.label} ({MORALE_PLAYERS})"


def morale_step(state: CwbState, unit: Unit) -> Step | None:
    """The step that reports a Low or Out unit's morale effect, or ``None`` (CWB Supply).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="Union"),))
    >>> step = morale_step(state, Unit(name="A", side="Union", men=10, ammo=Ammo.OUT))
    >>> step.text.startswith("A: morale checks −1 while Out Of Ammo"), step.modifiers[0].render()
    (True, '-1 Out Of Ammo')
    """
    modifier = morale_modifier(state, unit)
    text = morale_text(state, unit)
    if modifier is None or text is None:
        return None
    return Step(rule=RULE, text=f"{unit.name}: {text}", modifiers=(modifier,))


def check_fire(state: CwbState, unit: Unit, mode: FireMode) -> Ammo:
    """Refuse fire the unit's ammunition forbids; return the level that allowed it (CWB Supply).

    :raises IllegalAction: Out Of Ammo, or Low On Ammo and not Defensive Fire.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="Union"),))
    >>> check_fire(state, Unit(name="A", side="Union", men=10, ammo=Ammo.LOW), "offensive")
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: A is Low On Ammo and may only fire Defensive Fire. (CWB Supply)
    """
    ammo = firing_ammo(state, unit)
    if mode in FIRE_PERMISSION[ammo]:
        return ammo
    if ammo is Ammo.OUT:
        raise IllegalAction(
            f"{unit.name} is Out Of Ammo and cannot fire until it is resupplied.", rule=RULE
        )
    raise IllegalAction(f"{unit.name} is Low On Ammo and may only fire Defensive Fire.", rule=RULE)


def fire(state: CwbState, unit_name: str, mode: FireMode, dice: Dice) -> Outcome[CwbState]:
    """A unit fires: check permission, then roll for ammo loss where it applies (CWB Supply).

    All refusals happen before the d100 is rolled; the state is never changed by a refusal.

    >>> from rules_core.dice import ScriptedDice
    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="Union", ammo_loss_pct=4),),
    ...                  units=(Unit(name="A", side="Union", men=100),))
    >>> fire(state, "A", "defensive", ScriptedDice([5])).facts
    (('ammo loss', 'no'), ('A', 'Normal'))
    """
    unit = state.unit(unit_name)
    ammo = check_fire(state, unit, mode)
    side = state.side(unit.side)
    rolls = rolls_for_ammo_loss(state, unit)
    if rolls and side.ammo_loss_pct is None:
        raise IllegalAction(
            f"The ammo-loss percentage of {side.name} is not set; enter the scenario's "
            "Parameter Data with /cwb params first.",
            rule=RULE,
        )
    fire_name = "Offensive Fire" if mode == "offensive" else "Defensive Fire"
    steps = [
        Step(
            rule=RULE,
            text=f"{unit.name} ({ammo.label}) may fire {fire_name}"
            if unit.type != "artillery"
            else f"{unit.name}, at {ammo_text(state, unit)}, may fire {fire_name}",
        ),
    ]
    new_state = state
    after = unit.ammo
    if rolls:
        assert side.ammo_loss_pct is not None
        p = side.ammo_loss_pct
        face = dice.d(100, AMMO_LOSS_LABEL)
        roll = dice.rolls[-1]
        lost = face <= p
        if lost:
            after = ammo_after_loss(unit.ammo)
            new_state = state.with_unit(unit.model_copy(update={"ammo": after}))
            text = f"{AMMO_LOSS_LABEL} {face} ≤ {p} — ammunition {unit.ammo.label} → {after.label}"
        else:
            text = f"{AMMO_LOSS_LABEL} {face} > {p} — ammunition stays {unit.ammo.label}"
        if unit.type == "artillery" and unit.type not in state.ammo_loss_types:
            text += f" (Isolated artillery, {ISOLATION_OPTION})"
        steps.append(Step(rule=RULE, text=text, dice=(roll,)))
        loss_fact = "yes" if lost else "no"
    else:
        steps.append(
            Step(
                rule=RULE,
                text=(
                    f"Artillery fires at {ammo_text(state, unit)}; no ammo-loss roll "
                    "(only an Isolated battery rolls, under the "
                    f"{ISOLATION_OPTION})"
                    if unit.type == "artillery"
                    else f"{unit.type.capitalize()} does not roll for ammo loss in this game"
                ),
            )
        )
        loss_fact = "no roll"
    fired = new_state.unit(unit.name)
    reminder = morale_step(new_state, fired)
    if reminder is not None:
        steps.append(reminder)
    return CwbOutcome(
        state=new_state,
        steps=tuple(steps),
        rolls=tuple(dice.rolls[-1:]) if rolls else (),
        facts=(("ammo loss", loss_fact), (unit.name, ammo_text(new_state, fired))),
    )


def fire_odds(state: CwbState, unit_name: str, mode: FireMode) -> dict[tuple[Fact, ...], Fraction]:
    """Exact odds of a fire's outcome: ammo loss with probability p/100 (d(100) ≤ p).

    The facts depend on the d100 only through ``face ≤ p``, so two resolutions (faces 1 and 100)
    weighted p/100 and (100 − p)/100 give the same result as enumerating the 100 faces, about
    thirty times faster. Refusals are raised exactly as :func:`fire` raises them.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="Union", ammo_loss_pct=4),),
    ...                  units=(Unit(name="A", side="Union", men=100),))
    >>> fire_odds(state, "A", "offensive")[(("ammo loss", "yes"), ("A", "Low On Ammo"))]
    Fraction(1, 25)
    """
    unit = state.unit(unit_name)
    check_fire(state, unit, mode)
    p = state.side(unit.side).ammo_loss_pct
    if not rolls_for_ammo_loss(state, unit):
        return {fire(state, unit_name, mode, ScriptedDice([])).facts: Fraction(1)}
    if p is None:
        fire(state, unit_name, mode, ScriptedDice([]))  # raises the "not set" refusal
        raise AssertionError("unreachable: fire() refuses an unset percentage")  # pragma: no cover
    odds: dict[tuple[Fact, ...], Fraction] = {}
    for face, chance in ((1, Fraction(p, 100)), (100, Fraction(100 - p, 100))):
        if chance:
            facts = fire(state, unit_name, mode, ScriptedDice([face])).facts
            odds[facts] = odds.get(facts, Fraction(0)) + chance
    return odds


__all__ = [
    "AMMO_LOSS_LABEL",
    "FIRE_PERMISSION",
    "ISOLATION_OPTION",
    "MORALE_MODIFIER",
    "MORALE_PLAYERS",
    "RULE",
    "FireMode",
    "ammo_after_loss",
    "ammo_source",
    "ammo_text",
    "check_fire",
    "fire",
    "fire_odds",
    "firing_ammo",
    "morale_modifier",
    "morale_step",
    "morale_text",
    "rolls_for_ammo_loss",
]
