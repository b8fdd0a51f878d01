"""Discord surface: one cog per command group. Handlers stay thin: build the action, call the
service, render. No SQL and no rule tables here."""
