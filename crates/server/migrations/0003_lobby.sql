-- Maharajah cluster schema, version 3: the node that runs the lobby, and each node's games
-- playing now.
--
-- The lobby's live matching (open challenges, quick pairing, tables) lives on one node at a
-- time, as a room does: the other nodes forward their players' lobby connections to it. Which
-- node that is, and for how long, is leased here exactly as a room's owner is in `room_owner`:
-- the owner renews the lease; when it dies or drains, the first node a player asks claims it
-- (compare-and-set by the database's clock), with the epoch one more.
CREATE TABLE lobby_owner (
    id           integer PRIMARY KEY CHECK (id = 1),
    node         text NOT NULL,
    epoch        bigint NOT NULL,
    lease_until  timestamptz NOT NULL
);

-- Each node's rooms with a game on, as its "playing now" lines (JSON, the most watched first),
-- written with its heartbeat: any node lists the games of the whole cluster.
ALTER TABLE nodes ADD COLUMN playing text NOT NULL DEFAULT '[]';
