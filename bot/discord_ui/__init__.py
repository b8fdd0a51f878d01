"""The Discord side: the bot client, command sync, slash commands, the interaction handler."""
