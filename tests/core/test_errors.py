"""User-safe messages: the error family and pydantic's errors in players' words."""

from __future__ import annotations

from typing import Any

import pytest

from rules_core.errors import IllegalAction, InvalidInput, RulesError, explain_validation_error


def test_both_kinds_are_rules_errors_with_their_citation() -> None:
    illegal = IllegalAction("A lone leader may not use Sustained Fire.", rule="A9.3")
    assert isinstance(illegal, RulesError)
    assert str(illegal) == "A lone leader may not use Sustained Fire. (A9.3)"
    assert InvalidInput("There is no unit called 'Bob'.").user_message == (
        "There is no unit called 'Bob'."
    )


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        ({"type": "missing", "loc": ("replaced_by",)}, "Give the option replaced-by."),
        (
            {"type": "greater_than_equal", "loc": ("men",), "ctx": {"ge": 1}, "input": -5},
            "men must be 1 or more, not -5.",
        ),
        (
            {"type": "int_parsing", "loc": ("drm",), "input": "abc"},
            "drm must be a whole number, not 'abc'.",
        ),
        (
            {"type": "string_too_short", "loc": ("name",), "ctx": {"min_length": 1}, "input": ""},
            "name may not be empty.",
        ),
        (
            {"type": "string_too_long", "loc": ("title",), "ctx": {"max_length": 100}},
            "title may have at most 100 characters.",
        ),
        ({"type": "extra_forbidden", "loc": ("range",)}, "This command has no option range."),
        (
            {"type": "value_error", "loc": ("amount",), "msg": "Value error, 1.3 SP is not exact"},
            "1.3 SP is not exact.",
        ),
        (
            {"type": "url_parsing", "loc": ("units", 2), "msg": "Input should be a valid URL"},
            "units: input should be a valid URL.",
        ),
    ],
)
def test_validation_errors_become_one_plain_sentence(error: dict[str, Any], sentence: str) -> None:
    assert explain_validation_error(error) == sentence
