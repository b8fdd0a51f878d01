"""Per-seat response times from a game's log entries: what counts as an action, whose it is,
and what a seat change does — exact figures on entries with chosen times."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.stats.times import SeatTimes, duration_text, response_times, times_line

START = datetime(2026, 3, 1, 9, 0)
REF, ANN, BEN, CAT = 1, 2, 3, 4
NAMES = {REF: "ref", ANN: "ann", BEN: "ben", CAT: "cat"}


def at(minutes: float) -> str:
    return (START + timedelta(minutes=minutes)).isoformat(timespec="milliseconds") + "+00:00"


def entry(kind: str, who: int, minutes: float, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "by": {"id": who, "name": NAMES[who]}, "at": at(minutes), **data}


def seat(side: str, who: int, minutes: float, by: int | None = None) -> dict[str, Any]:
    player = {"id": who, "name": NAMES[who]}
    return entry("game.seat", by or who, minutes, side=side, player=player)


def opening() -> list[dict[str, Any]]:
    return [
        entry("game.new", REF, 0, sides=["Axis", "Allied"]),
        seat("Axis", ANN, 1),
        seat("Allied", BEN, 2),
    ]


def figures(times: list[SeatTimes]) -> list[tuple[str, str, int, list[float]]]:
    return [
        (t.side, t.player, t.responses, [w.total_seconds() / 60 for w in t.waits]) for t in times
    ]


def test_a_response_runs_from_the_other_sides_latest_action_to_the_players_next() -> None:
    log = [
        *opening(),
        entry("action", ANN, 10),  # Axis opens: nobody waited for it yet
        entry("roll", ANN, 15),  # Axis again: Allied now waits from here
        entry("action", BEN, 75),  # Allied answers after 60 min
        entry("action", BEN, 80),  # a second action in a row is not a second response
        entry("game.propose", ANN, 100),  # Axis answers after 20 min
        entry("action", BEN, 100 + 24 * 60),  # Allied confirms a day later: it acted
        entry("declared", ANN, 100 + 24 * 60 + 5),  # a beacon declaration is an action
        entry("game.decline", BEN, 100 + 24 * 60 + 45),  # refusing a proposal answers it
    ]
    times = response_times(log)
    assert figures(times) == [
        ("Axis", "ann", 2, [20, 5]),
        ("Allied", "ben", 3, [60, 24 * 60, 40]),
    ]
    axis, allied = times
    assert allied.median == timedelta(minutes=60)
    assert allied.longest == timedelta(days=1)
    assert allied.total == timedelta(minutes=60 + 24 * 60 + 40)
    assert times_line(allied) == (
        "3 responses · median 1 h 00 min · longest 1 d 0 h 00 min · waiting in all 1 d 1 h 40 min"
    )
    assert times_line(axis) == (
        "2 responses · median 12 min 30 s · longest 20 min 0 s · waiting in all 25 min 0 s"
    )


def test_referees_and_what_is_not_a_move_are_not_counted() -> None:
    log = [
        *opening(),
        entry("action", ANN, 10),
        entry("roll", REF, 20),  # the referee holds no seat
        entry("action", REF, 25),
        entry("game.void", REF, 26),
        entry("game.notices", BEN, 30),  # a setting, not a move
        entry("game.seed", BEN, 31),
        entry("action", BEN, 40, referee_only=["correction"]),  # a referee's correction
        entry("roll", BEN, 50),  # Allied's response: 40 min after Axis's action
        entry("game.result", ANN, 60),  # the result ends the game: not a move
    ]
    assert figures(response_times(log)) == [("Axis", "ann", 0, []), ("Allied", "ben", 1, [40])]


def test_a_seat_change_drops_the_wait_in_progress_and_starts_a_new_row() -> None:
    log = [
        *opening(),
        entry("action", BEN, 5),
        entry("action", ANN, 10),  # Axis answers after 5 min; Allied waits from here
        seat("Allied", CAT, 300, by=REF),  # ben never answered: cat takes his seat
        entry("action", CAT, 310),  # cat acted 10 min after sitting down: not a response
        entry("action", ANN, 330),
        entry("action", CAT, 345),  # a response of 15 min
        seat("Allied", CAT, 400, by=REF),  # the same player seated again changes nothing
        entry("action", ANN, 410),
    ]
    assert figures(response_times(log)) == [
        ("Axis", "ann", 3, [5, 20, 65]),
        ("Allied", "ben", 0, []),
        ("Allied", "cat", 1, [15]),
    ]


def test_one_player_holding_both_seats_is_nobodys_opponent() -> None:
    log = [
        entry("game.new", REF, 0, sides=["Axis", "Allied"]),
        seat("Axis", ANN, 1),
        entry("action", ANN, 2),  # nobody holds the other seat yet
        seat("Allied", ANN, 3),
        entry("action", ANN, 4),
        entry("roll", ANN, 9),
    ]
    assert figures(response_times(log)) == [("Axis", "ann", 0, []), ("Allied", "ann", 0, [])]
    assert times_line(response_times(log)[0]) == "0 responses"


def test_a_log_without_seats_has_no_times() -> None:
    assert response_times([entry("game.new", REF, 0, sides=["Axis", "Allied"])]) == []
    assert response_times([]) == []


def test_durations_read_as_players_say_them() -> None:
    assert duration_text(timedelta(seconds=59.9)) == "59 s"
    assert duration_text(timedelta(minutes=61)) == "1 h 01 min"
    assert duration_text(timedelta(days=3, hours=4, minutes=7)) == "3 d 4 h 07 min"


moves = st.lists(
    st.tuples(st.sampled_from([ANN, BEN, REF]), st.integers(min_value=0, max_value=600)),
    max_size=30,
)


@given(moves)
def test_responses_are_the_changes_of_author_and_never_wait_longer_than_the_game(
    drawn: list[tuple[int, int]],
) -> None:
    """Between seated players, each change of author is one response; the waits of both seats
    add up to the time between those changes, so never more than the game lasted."""
    log = opening()
    minute = 10
    for who, gap in drawn:
        minute += gap
        log.append(entry("action", who, minute))
    times = response_times(log)
    authors = [who for who, _ in drawn if who != REF]
    changes = sum(1 for a, b in itertools.pairwise(authors) if a != b)
    assert sum(t.responses for t in times) == changes
    span = timedelta(minutes=minute - 10)
    assert sum((t.total for t in times), timedelta()) <= span
    assert all(t.longest is None or t.longest <= t.total for t in times)
