-- Maharajah cluster schema, version 1: rooms as a snapshot plus an append-only log, the
-- directory (which node owns which room, with a lease and an epoch), nodes, players, games.

-- A room's record as of event `snapshot_n` (JSON text, the same record SQLite stores).
CREATE TABLE rooms (
    code        text PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('chess', 'chaturaji')),
    snapshot    text NOT NULL,
    snapshot_n  bigint NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Every acknowledged change of a room after its snapshot, in order: a patch of the record
-- (see crates/server/src/store/patch.rs), written by the owner with the epoch it holds.
CREATE TABLE room_events (
    code   text NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
    n      bigint NOT NULL,
    epoch  bigint NOT NULL,
    patch  text NOT NULL,
    at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (code, n)
);

-- The directory: the owner of each room, its epoch (one more at every change of owner) and
-- how long its lease lasts. A write is accepted only from the owner, at its epoch, in lease.
CREATE TABLE room_owner (
    code         text PRIMARY KEY REFERENCES rooms (code) ON DELETE CASCADE,
    node         text NOT NULL,
    epoch        bigint NOT NULL,
    lease_until  timestamptz NOT NULL
);
CREATE INDEX room_owner_by_node ON room_owner (node);
CREATE INDEX room_owner_by_lease ON room_owner (lease_until);

-- The nodes: where each one is reached, when it was last heard of, whether it drains.
CREATE TABLE nodes (
    node       text PRIMARY KEY,
    advertise  text NOT NULL,
    heartbeat  timestamptz NOT NULL,
    draining   boolean NOT NULL DEFAULT false,
    rooms      integer NOT NULL DEFAULT 0
);

-- Players (as SQLite's `players`): a second look-alike name is refused by the database.
CREATE TABLE players (
    key       text PRIMARY KEY,
    skeleton  text UNIQUE,
    record    text NOT NULL
);

-- Finished games for the profiles; `key` (CODE/n) makes a second write of one game a no-op.
CREATE TABLE games (
    seq     bigserial PRIMARY KEY,
    id      bigint NOT NULL,
    key     text UNIQUE NOT NULL,
    record  text NOT NULL
);

-- The secret the nodes show each other when one forwards a player's connection to another.
CREATE TABLE cluster (
    id      integer PRIMARY KEY CHECK (id = 1),
    secret  text NOT NULL
);
INSERT INTO cluster (id, secret) VALUES (1, md5(random()::text || clock_timestamp()::text));
