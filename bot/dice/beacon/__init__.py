"""Beacon dice: a public randomness beacon (drand) mixed into every die of a beacon game.

``chain`` holds the chain's facts and the BLS check of a round; ``relay`` fetches rounds from
relays in turn; ``local`` is a local chain and relay for tests and offline trials.
See docs/DICE.md and docs/TRUST.md.
"""
