"""Verifiable dice: committed seeds and their derivation (server dice) and the drand beacon."""
