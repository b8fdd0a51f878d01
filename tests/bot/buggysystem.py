"""The toy system with a bug planted (``/toy ammo level:5`` divides by zero): the console must
answer such a line with ``internal error (...)`` and go on (``--plugin tests.bot.buggysystem``)."""

from __future__ import annotations

from typing import Any

from rules_core.dice import Dice
from rules_core.outcome import Outcome
from tests.bot.toysystem import Ammo, Tally, Toy


class Buggy(Toy):
    def resolve(self, state: Tally, action: Any, dice: Dice) -> Outcome[Tally]:
        if isinstance(action, Ammo) and action.level == 5:
            return 1 // 0  # type: ignore[return-value]
        return super().resolve(state, action, dice)


SYSTEM = Buggy()
