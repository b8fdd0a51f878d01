-- 001: games per (guild, channel-or-thread), the append-only log, seeds, per-die records.

CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    public_id     TEXT    NOT NULL UNIQUE,          -- the game id mixed into every die
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,                 -- the channel or thread
    parent_id     INTEGER,                          -- the thread's parent channel, if a thread
    system        TEXT    NOT NULL,
    title         TEXT    NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('active', 'ended')),
    created_at    TEXT    NOT NULL,
    created_by    INTEGER NOT NULL,
    table_json    TEXT    NOT NULL,                 -- sides, seats, referees, voided entries
    state_json    TEXT    NOT NULL,                 -- the current state snapshot (canonical JSON)
    head_seq      INTEGER NOT NULL,                 -- the log head: last entry's sequence number
    head_hash     TEXT    NOT NULL,                 -- ... and its hash
    next_die      INTEGER NOT NULL,                 -- the next die's sequence number
    epoch         INTEGER NOT NULL,                 -- the current seed epoch
    seed          BLOB    NOT NULL,                 -- the current secret seed (revealed at rotation/end)
    commitment    TEXT    NOT NULL,                 -- SHA-256 of the current seed
    players_mix   BLOB    NOT NULL                  -- the running players mix (docs/DICE.md)
);

CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (guild_id, channel_id) WHERE status = 'active';
CREATE INDEX games_by_channel ON games (guild_id, channel_id, id);

CREATE TABLE entries (
    game_id        INTEGER NOT NULL REFERENCES games (id),
    seq            INTEGER NOT NULL,
    interaction_id TEXT    NOT NULL UNIQUE,
    kind           TEXT    NOT NULL,
    body           TEXT    NOT NULL,                -- canonical JSON of the entry without its hash
    hash           TEXT    NOT NULL,                -- SHA-256 of body
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER entries_are_never_updated BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
CREATE TRIGGER entries_are_never_deleted BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;

CREATE TABLE seeds (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    epoch       INTEGER NOT NULL,
    commitment  TEXT    NOT NULL,
    revealed    BLOB,                               -- the seed once revealed, else NULL
    PRIMARY KEY (game_id, epoch)
) WITHOUT ROWID;

CREATE TABLE rolls (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    seq         INTEGER NOT NULL,                   -- the die's sequence number in its game
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    sides       INTEGER NOT NULL,
    face        INTEGER NOT NULL,
    label       TEXT    NOT NULL,
    scripted    INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE INDEX rolls_by_guild_user ON rolls (guild_id, user_id);
CREATE INDEX rolls_by_channel ON rolls (guild_id, channel_id);
