"""The game log: canonical JSON, the hash chain, replay, the export and its verification."""
