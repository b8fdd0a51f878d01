"""A14.1: which Original DRs a player rolls with ``/roll`` activate the enemy Sniper.

The IFT and To Hit DRs the bot rolls itself (``/asl fire``, ``/asl tohit``) are flagged where
they are resolved. The DRs the players resolve themselves are rolled with ``/roll`` and a
category, as on VASL's dice buttons: an Original DR of a category that activates a Sniper (an
IFT not of OBA, a To Hit, a Morale Check, a Task Check) equal to the SAN of a side whose seat
the roller does not hold activates that side's Sniper, and the reply says so. A roller holding
no seat (a referee) or every seat could be either side: the reply names each side whose SAN the
DR equals, and whose DR it must be.

>>> from rules_core.asl.actions import SetSan
>>> from rules_core.asl.examples import build_state
>>> from rules_core.dice import Roll
>>> state = build_state([SetSan(side="Axis", san=4), SetSan(side="Allied", san=3)])
>>> mc = Roll(label="MC DR", kind="DR", sides=6, faces=(1, 2))
>>> [n.render() for n in sniper_notes(state, "MC", mc, ["Axis"])]
['A14.1: Original MC DR 3 = the Allied SAN 3 — the Allied Sniper is activated']
>>> sniper_notes(state, "MC", mc, ["Allied"]), sniper_notes(state, "Rally", mc, ["Axis"])
((), ())
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.asl.fire.plan import MIN_SAN
from rules_core.asl.state import AslState
from rules_core.dice import Roll
from rules_core.outcome import Step

SNIPER_CATEGORIES = ("IFT", "TH", "MC", "TC")
"""The ``/roll`` categories whose Original DR activates the enemy Sniper (A14.1: TH, MC, TC and
non-OBA IFT DRs). Rally, CC, To Kill DRs and the drs activate none; an IFT DR of OBA is rolled
under a category of the players' own (``category:OBA``)."""


def sniper_notes(
    state: AslState, category: str, roll: Roll, held: Sequence[str]
) -> tuple[Step, ...]:
    """A14.1: the enemy Sniper activated by this Original DR of a ``/roll`` category, if any.

    ``held`` are the sides whose seat the roller holds: the DR is theirs, and the Sniper that
    can be activated is the other side's. Holding none or all of them, the DR could be either
    side's, and each side whose SAN it equals is named with whose DR it must be.

    >>> from rules_core.asl.actions import SetSan
    >>> from rules_core.asl.examples import build_state
    >>> state = build_state([SetSan(side="Axis", san=3), SetSan(side="Allied", san=1)])
    >>> ift = Roll(label="IFT DR", kind="DR", sides=6, faces=(2, 1))
    >>> (note,) = sniper_notes(state, "IFT", ift, [])
    >>> note.text.endswith("the Axis Sniper is activated if the Allied side made this DR")
    True
    >>> low = Roll(label="TC DR", kind="DR", sides=6, faces=(1, 1))
    >>> sniper_notes(state, "TC", low, ["Axis"])  # DR 2, but the Allied SAN 1 is no Sniper
    ()
    """
    if roll.kind != "DR" or category not in SNIPER_CATEGORIES:
        return ()
    names = [side.name for side in state.sides]
    mine = {name.lower() for name in held}
    unknown = not mine or all(name.lower() in mine for name in names)
    notes: list[Step] = []
    for side in state.sides:
        if side.san < MIN_SAN or roll.total != side.san:
            continue
        if not unknown and side.name.lower() in mine:
            continue  # his own SAN: a player's DR activates only the enemy Sniper
        text = (
            f"Original {category} DR {roll.total} = the {side.name} SAN {side.san} — the "
            f"{side.name} Sniper is activated"
        )
        if unknown:
            others = " or ".join(name for name in names if name != side.name)
            text += f" if the {others} side made this DR"
        notes.append(Step(rule="A14.1", text=text, dice=(roll,)))
    return tuple(notes)


__all__ = ["SNIPER_CATEGORIES", "sniper_notes"]
