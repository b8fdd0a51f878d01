"""The action pipeline: load the channel's game → permission → resolve with its dice → persist."""
