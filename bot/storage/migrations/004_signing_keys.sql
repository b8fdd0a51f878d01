-- 004: the bot's Ed25519 signing keys (docs/TRUST.md, *Signed heads*): the key in use signs every
-- head the bot posts and every export; a rotated key stays, retired, so that what it signed can
-- still be told apart from a forgery. Created at the bot's first start; carried by referee
-- backup and referee migrate-db like the games.

CREATE TABLE signing_keys (
    id          INTEGER PRIMARY KEY,
    public_key  TEXT NOT NULL UNIQUE,               -- 64 lowercase hex digits (32 bytes)
    private_key BLOB NOT NULL,                      -- the raw 32-byte Ed25519 private key
    created_at  TEXT NOT NULL,                      -- ISO 8601 UTC
    current     INTEGER UNIQUE                      -- 1: the key in use; NULL: retired
);
