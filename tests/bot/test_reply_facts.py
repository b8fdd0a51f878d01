"""No reply states an effect the state does not hold (issue 23, "Done when").

Every action of the suite's whole games (``tests/bot/games``, each under several seeds) and of
every console session in the docs is played through a real console, replayed from its log, and
each fact of its reply read against the state after it by its system's reader
(``tests/<system>/reply_facts.py``; the harness is ``tests/bot/reply_facts.py``).
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from rules_core.cwb.actions import Fire
from rules_core.cwb.state import Ammo, CwbState, SideData
from rules_core.cwb.state import Unit as CwbUnit
from rules_core.ocs.actions import Attack
from rules_core.ocs.state import Dump, OcsState
from rules_core.ocs.state import Unit as OcsUnit
from rules_core.outcome import Outcome
from tests.bot.reply_facts import Finding, Unmapped, findings, reader, scripts


@pytest.fixture(scope="module")
def every_finding(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Finding]]:
    """Every finding of every script, by system (played once for the module)."""
    root = tmp_path_factory.mktemp("reply-facts")
    by_system: dict[str, list[Finding]] = defaultdict(list)
    played: set[str] = set()
    for number, script in enumerate(scripts()):
        for finding in findings(script, root / str(number)):
            by_system[finding.system].append(finding)
        played.add(script.name)
    assert len(played) > 20  # the games and the docs' sessions were found
    by_system["played"] = []
    return by_system


@pytest.mark.parametrize(
    "system",
    [
        "ocs",
        "cwb",
        "asl",
    ],
)
def test_every_reply_fact_holds_in_the_state_after_it(
    system: str, every_finding: dict[str, list[Finding]]
) -> None:
    found = [str(f) for f in every_finding.get(system, [])]
    assert not found, "\n".join(found)


def test_a_reply_stating_what_the_state_does_not_hold_is_found() -> None:
    """The readers can fail: a forged fact of each system is reported, an unknown one too."""
    state = OcsState(
        sides=("Axis", "Soviet"),
        dumps=(Dump(side="Axis", hex="A1", tokens=4),),
        units=(OcsUnit(name="Bn", side="Axis", hex="A1"),),
    )
    action = Attack(attackers=("Bn",), dump="A1")
    paid = Outcome[OcsState](
        state=state.model_copy(update={"dumps": (Dump(side="Axis", hex="A1", tokens=3),)}),
        facts=(("Bn", "paid 1 T"), ("Dump", "-1 T")),
    )
    assert list(reader("ocs").problems(state, action, paid)) == []
    marked = paid.model_copy(update={"facts": (("Bn", "internals: LOW"), ("Dump", "-2 T"))})
    assert list(reader("ocs").problems(state, action, marked)) == [
        "Bn: 'internals: LOW', but the state says steps 1, RE 1, internals NONE, out of supply "
        "False, trace traced, mode combat, hex A1, location map, load 0 T",
        "Dump: -2 T, but 1 T left the map",
    ]
    with pytest.raises(Unmapped):
        list(reader("ocs").problems(state, action, paid.model_copy(update={"facts": (
            ("Bn", "promoted"),)})))  # fmt: skip
    cwb = CwbState(
        sides=(SideData(name="CSA", artillery_ammo=Ammo.LOW),),
        units=(CwbUnit(name="Pegram", side="CSA", type="artillery", men=90),),
    )
    fire = Fire(unit="Pegram", mode="defensive")
    said = Outcome[CwbState](state=cwb, facts=(("ammo loss", "no roll"), ("Pegram", "Normal")))
    assert list(reader("cwb").problems(cwb, fire, said)) == [
        "Pegram: 'Normal', but it fires at \"Low On Ammo (CSA's artillery Ammo Level)\""
    ]
