"""Pure, exact rules for the referee bot.

No I/O, no randomness of its own, nothing from ``discord``, ``aiosqlite``, ``bot`` or ``cogs``.
Shared pieces live here; each game system is a subpackage (``asl``, ``ocs``, ``cwb``) exposing
``SYSTEM``, an instance of :class:`rules_core.system.GameSystem`.
"""

from rules_core.dice import Dice, DiceScriptError, RecordingDice, Roll, ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from rules_core.odds import Branch, branches, exact_odds, marginals
from rules_core.outcome import Fact, Modifier, Outcome, Step

__all__ = [
    "Branch",
    "Dice",
    "DiceScriptError",
    "Fact",
    "IllegalAction",
    "InvalidInput",
    "Modifier",
    "Outcome",
    "RecordingDice",
    "Roll",
    "RulesError",
    "ScriptedDice",
    "Step",
    "branches",
    "exact_odds",
    "marginals",
]
