"""Renderings of a :class:`~bot.models.Reply`: plain text here; Discord embeds beside it."""
