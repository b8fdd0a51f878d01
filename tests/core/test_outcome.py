"""Outcome, Step and Modifier types."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from rules_core.dice import Roll
from rules_core.outcome import Modifier, Outcome, Step, total_modifier


class Counter(BaseModel):
    model_config = ConfigDict(frozen=True)
    value: int


def test_outcome_explains_itself_with_rule_numbers() -> None:
    ift = Roll(label="IFT DR", kind="DR", sides=6, faces=(6, 6))
    outcome = Outcome[Counter](
        state=Counter(value=1),
        steps=(
            Step(rule="A9.7", text="Original DR 12 ≥ B12 — LMG malfunctions", dice=(ift,)),
            Step(
                rule="FB16.31",
                text="Original DR 12 ≥ B12 — LMG eliminated",
                modifiers=(Modifier(label="level 4", value=0, rule="FB16.3"),),
            ),
        ),
        rolls=(ift,),
        facts=(("LMG", "eliminated"),),
    )
    assert outcome.explanation() == [
        "A9.7: Original DR 12 ≥ B12 — LMG malfunctions",
        "FB16.31: Original DR 12 ≥ B12 — LMG eliminated",
    ]
    assert outcome.rules_cited() == ["A9.7", "FB16.31"]
    assert outcome.fact("LMG") == "eliminated"
    assert outcome.fact("HMG") is None
    assert outcome.steps[0].dice[0].render() == "IFT DR 12 (6,6)"


def test_outcome_is_frozen_and_round_trips_through_json() -> None:
    outcome = Outcome[Counter](state=Counter(value=3), facts=(("x", "y"),))
    with pytest.raises(ValidationError):
        outcome.state = Counter(value=4)  # type: ignore[misc]
    again = Outcome[Counter].model_validate_json(outcome.model_dump_json())
    assert again == outcome
    assert hash(again.facts) == hash(outcome.facts)


def test_modifiers_render_signed_and_sum() -> None:
    mods = [
        Modifier(label="Hungarian", value=1),
        Modifier(label="1945", value=-1),
        Modifier(label="CX", value=1),
    ]
    assert [m.render() for m in mods] == ["+1 Hungarian", "-1 1945", "+1 CX"]
    assert total_modifier(mods) == 1
