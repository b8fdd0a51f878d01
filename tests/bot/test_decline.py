"""/game decline: the other side refuses a proposal, its proposer withdraws it, a referee may do
either; logged, never confirmable after; checked by both verifiers (a forged decline or a
confirmation of a declined proposal is rejected)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.console import console_id
from bot.log.verify import verify_text
from bot.models import Actor
from tests.bot.test_console import referee
from tests.bot.test_verify_forgery import ALICE, BOB, REF, SYSTEMS, play, reseal, standalone

LINES = """\
/game new system:asl
@alice /game seat side:Axis
@bob /game seat side:Allied
@bob /asl level side:Axis level:3
@carol /game decline entry:4
@bob /game decline entry:3
@alice /game decline entry:4 reason:"we agreed on 2"
@alice /game confirm entry:4
@alice /asl level side:Axis level:2
@alice /game decline entry:6
@bob /asl level side:Axis level:2
/game decline entry:8
@bob /asl level side:Axis level:2
@alice /game confirm entry:10
/game log last:6
/game status
"""


def test_a_proposal_is_declined_by_the_other_side_or_withdrawn_and_stays_refused(
    tmp_path: Path,
) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "d.db"), "--dice=", "--out", str(tmp_path),
        stdin=LINES + "/game export\n",
    )  # fmt: skip
    out = run.stdout
    assert "#4 bob proposes /asl level side:Axis level:3" in out
    assert (
        "line 5: Only the Axis player or a referee without a seat may decline this proposal; its "
        "proposer may withdraw it."
    ) in out
    assert "line 6: Entry 3 is not a proposal waiting for confirmation." in out
    assert "#5 Proposal 4 declined: we agreed on 2 — alice" in out
    assert "line 8: Entry 4 is not a proposal waiting for confirmation." in out
    assert "#7 Proposal 6 withdrawn — alice" in out
    assert "#9 Proposal 8 declined — you" in out  # the game's referee
    assert "#11 /asl level — alice" in out  # a later proposal is confirmed as usual
    page = out[out.index("log entries #6–#11") :].splitlines()
    assert page[1:7] == [
        "  #6: alice: proposes /asl level side:Axis level:2",
        "  #7: alice: withdraws proposal 6",
        "  #8: bob: proposes /asl level side:Axis level:2",
        "  #9: you: declines proposal 8",
        "  #10: bob: proposes /asl level side:Axis level:2",
        "  #11: alice: /asl level → Axis: Ammunition Shortage level 2 (proposal #10 confirmed)",
    ]
    assert "Waiting for confirmation" not in out[out.index("(active)") :]
    assert "Axis: Ammunition Shortage level 2" in out
    (export,) = tmp_path.glob("game-*.jsonl")
    verified = referee("verify", str(export))
    assert verified.returncode == 0, verified.stdout + verified.stderr


CAROL = Actor(user_id=console_id("carol"), name="carol")
GAME: list[tuple[Actor, str]] = [
    (REF, "/game new system:asl"),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (BOB, "/asl level side:Axis level:3"),
    (ALICE, "/game decline entry:4"),
    (BOB, "/asl level side:Axis level:2"),
    (ALICE, "/game confirm entry:6"),
]


@pytest.fixture(scope="module")
def declined(tmp_path_factory: pytest.TempPathFactory) -> str:
    return asyncio.run(play(tmp_path_factory.mktemp("decline") / "game.db", GAME))


def decline_by_carol(entries: list[dict[str, Any]]) -> None:
    entries[4]["by"] = {"id": CAROL.user_id, "name": "carol"}  # holds no seat, no referee


def decline_as_withdrawn(entries: list[dict[str, Any]]) -> None:
    entries[4]["withdrawn"] = True  # alice did not make proposal 4


def confirm_the_declined_one(entries: list[dict[str, Any]]) -> None:
    entries[6]["agreed"]["proposal"] = 4  # proposal 4 was declined at entry 5
    entries[6]["action"]["level"] = 3


def decline_what_is_no_proposal(entries: list[dict[str, Any]]) -> None:
    entries[4]["entry"] = 3


@pytest.mark.parametrize(
    "forge",
    [decline_by_carol, decline_as_withdrawn, confirm_the_declined_one, decline_what_is_no_proposal],
)
def test_a_forged_decline_is_rejected_by_both_verifiers(
    declined: str, tmp_path: Path, forge: Any
) -> None:
    assert [line for line in declined.splitlines() if '"game.decline"' in line]
    genuine = verify_text(declined, SYSTEMS)
    assert genuine.ok, genuine.message
    assert standalone(declined, tmp_path).returncode == 0
    forged = reseal(declined, forge)
    assert not verify_text(forged, SYSTEMS).ok
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("MISMATCH"), run.stdout
