-- 002: the status board of a game in Discord (/game board): whether it is on, and its message.
-- Operational, not game state: the board changes nothing at the table, so it is kept beside
-- the game, outside the hash-chained log, and an export or a verification never sees it.

CREATE TABLE boards (
    game_id     INTEGER NOT NULL PRIMARY KEY REFERENCES games (id),
    message_id  INTEGER,                            -- the board's Discord message, once posted
    enabled     INTEGER NOT NULL                    -- 1: updated after every action; 0: off
) WITHOUT ROWID;
