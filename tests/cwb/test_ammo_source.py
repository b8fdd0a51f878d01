"""Each reply names the Ammo level that applied and where it came from (issue 23, CWB).

"The ability for Artillery units to fire is based on the Ammo Level for their side. If the
Isolation Effects Optional Rule is being used, then Artillery units can also become Low or Out
Of Ammo when Isolated." A battery fires at its side's Ammo Level, or at its own when the rule
made that worse (our reading 3): the reply says which, and from where.
"""

from __future__ import annotations

import pytest

from rules_core.cwb import SYSTEM
from rules_core.cwb.actions import Fire, UnitAdd, UnitList, UnitSet
from rules_core.cwb.state import Ammo, CwbState, SideData, Unit
from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction

BATTERY = Unit(name="Pegram", side="CSA", type="artillery", men=90)


def _state(side_level: Ammo, own: Ammo = Ammo.NORMAL, *, isolated: bool = False) -> CwbState:
    return CwbState(
        sides=(
            SideData(name="CSA", artillery_ammo=side_level, ammo_loss_pct=4, isolation_rule=True),
        ),
        units=(BATTERY.model_copy(update={"ammo": own, "isolated": isolated}),),
    )


def test_a_battery_firing_at_its_sides_low_level_reports_low_from_its_side() -> None:
    with ScriptedDice([]) as dice:
        out = SYSTEM.run(_state(Ammo.LOW), Fire(unit="Pegram", mode="defensive"), dice)
    assert out.fact("Pegram") == "Low On Ammo (CSA's artillery Ammo Level)"
    assert out.explanation()[0] == (
        "CWB Supply: Pegram, at Low On Ammo (CSA's artillery Ammo Level), may fire Defensive Fire"
    )


def test_an_isolated_battery_at_out_is_listed_at_its_own_level_not_its_sides() -> None:
    state = _state(Ammo.NORMAL, Ammo.OUT, isolated=True)
    with ScriptedDice([]) as dice:
        listed = SYSTEM.run(state, UnitList(), dice)
    text = listed.explanation()[0]
    assert "fires at Out Of Ammo (its own level, Isolation Effects Optional Rule)" in text
    assert "side's Ammo Level" not in text
    assert listed.fact("Pegram") == "Out Of Ammo (its own level, Isolation Effects Optional Rule)"
    with pytest.raises(IllegalAction, match="Pegram is Out Of Ammo and cannot fire"):
        SYSTEM.run(state, Fire(unit="Pegram", mode="defensive"), ScriptedDice([]))


def test_an_isolated_battery_that_loses_ammo_fires_at_its_own_low_level_after() -> None:
    state = _state(Ammo.NORMAL, isolated=True)
    with ScriptedDice([4]) as dice:
        out = SYSTEM.run(state, Fire(unit="Pegram", mode="offensive"), dice)
    assert out.facts == (
        ("ammo loss", "yes"),
        ("Pegram", "Low On Ammo (its own level, Isolation Effects Optional Rule)"),
    )
    assert out.explanation()[0] == (
        "CWB Supply: Pegram, at Normal (CSA's artillery Ammo Level), may fire Offensive Fire"
    )


def test_the_worse_level_applies_and_the_side_is_named_when_it_is_the_worse() -> None:
    # the side's Out is worse than the battery's own Low: the side's level applies
    with pytest.raises(IllegalAction, match="Pegram is Out Of Ammo"):
        SYSTEM.run(_state(Ammo.OUT, Ammo.LOW), Fire(unit="Pegram", mode="defensive"),
                   ScriptedDice([]))  # fmt: skip
    with ScriptedDice([]) as dice:
        listed = SYSTEM.run(_state(Ammo.OUT, Ammo.LOW), UnitList(), dice)
    assert listed.fact("Pegram") == "Out Of Ammo (CSA's artillery Ammo Level)"
    # an equal level is the side's: it applies whatever the battery's own
    with ScriptedDice([]) as dice:
        equal = SYSTEM.run(_state(Ammo.LOW, Ammo.LOW), UnitList(), dice)
    assert equal.fact("Pegram") == "Low On Ammo (CSA's artillery Ammo Level)"


def test_without_the_own_ammo_reading_the_sides_level_always_applies() -> None:
    off = _state(Ammo.NORMAL, Ammo.OUT, isolated=True).model_copy(
        update={"isolated_artillery_own_ammo": False}
    )
    with ScriptedDice([]) as dice:
        out = SYSTEM.run(off, Fire(unit="Pegram", mode="offensive"), dice)
    assert out.fact("Pegram") == "Normal (CSA's artillery Ammo Level)"


def test_without_the_isolation_rule_a_battery_fires_at_its_sides_level() -> None:
    """ "The ability for Artillery units to fire is based on the Ammo Level for their side. If the
    Isolation Effects Optional Rule is being used, then Artillery units can also become Low or
    Out Of Ammo when Isolated" — found by trying it: in a game without the rule, a battery added
    at Low was refused Offensive Fire ("Pegram is Low On Ammo") and listed as firing at "its own
    level, Isolation Effects Optional Rule" while its side's level was Normal."""
    no_rule = _state(Ammo.NORMAL, Ammo.LOW).model_copy(
        update={"sides": (SideData(name="CSA", ammo_loss_pct=4),)}
    )
    with ScriptedDice([]) as dice:
        out = SYSTEM.run(no_rule, Fire(unit="Pegram", mode="offensive"), dice)
    assert out.fact("Pegram") == "Normal (CSA's artillery Ammo Level)"
    # and a battery's own level is refused where nothing would read it
    game = SYSTEM.run(no_rule, UnitAdd(name="X", side="CSA", men=10), ScriptedDice([])).state
    for action in (
        UnitAdd(name="Bat", side="CSA", men=90, type="artillery", ammo=Ammo.LOW),
        UnitSet(name="Pegram", ammo=Ammo.OUT),
    ):
        with pytest.raises(IllegalAction, match="kept only under the Isolation Effects"):
            SYSTEM.run(game, action, ScriptedDice([]))
    with_rule = _state(Ammo.NORMAL)
    added = SYSTEM.run(
        with_rule,
        UnitAdd(name="Bat", side="CSA", men=90, type="artillery", ammo=Ammo.LOW),
        ScriptedDice([]),
    )
    assert added.state.unit("Bat").ammo is Ammo.LOW
    cleared = SYSTEM.run(no_rule, UnitSet(name="Pegram", ammo=Ammo.NORMAL), ScriptedDice([]))
    assert cleared.state.unit("Pegram").ammo is Ammo.NORMAL
