-- 003: the games' timers (reminders of a response deadline, the deadline itself, the organiser's
-- alert), the organisers' settings of each server, and who takes notices by direct message.
-- Operational, like the boards: a timer only says when to look at a game again; what is due is
-- decided from the game's log when it fires, and a missed deadline is written into the log then.

CREATE TABLE timers (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games (id),
    name          TEXT    NOT NULL UNIQUE,      -- the game, the wait and the step it is for
    event         TEXT    NOT NULL,             -- reminder, deadline or alert
    ball          INTEGER NOT NULL,             -- the entry the player's wait began at
    due           INTEGER NOT NULL,             -- when, in milliseconds since 1970-01-01 UTC
    plan          INTEGER NOT NULL,             -- the log head it was planned at (a later plan wins)
    data          TEXT    NOT NULL,             -- JSON: the step (percent of the deadline)
    claimed_by    TEXT,                         -- the process sending it now
    claimed_until INTEGER,                      -- its claim lapses then (that process died)
    done          INTEGER                       -- when it was sent or dropped: it never fires again
);

CREATE INDEX timers_pending ON timers (due) WHERE done IS NULL;
CREATE INDEX timers_by_game ON timers (game_id, ball);

CREATE TABLE server_settings (
    guild_id  INTEGER NOT NULL PRIMARY KEY,
    settings  TEXT    NOT NULL                  -- JSON: deadlines, reminders, limits, channel
) WITHOUT ROWID;

CREATE TABLE notify (
    user_id   INTEGER NOT NULL PRIMARY KEY,
    dm        INTEGER NOT NULL,                 -- 1: turn notices, reminders and rolls by DM
    refused   INTEGER                           -- when Discord refused a DM (closed): not retried
) WITHOUT ROWID;
