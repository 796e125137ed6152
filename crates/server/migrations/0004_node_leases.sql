-- Maharajah cluster schema, version 4: one lease per node instead of one per room.
--
-- A node renewed the lease of every room it owned (one row per room every third of the lease:
-- at 10,000 games twice as many row writes as the moves themselves). Now a node renews one
-- row, its own, and a room is held while its owner's lease runs: a room's write is fenced by
-- its owner and epoch (`room_owner`) and by the owner's lease (`nodes.lease_until`), and a
-- room is claimed when its owner's lease ran out (the epoch one more, as before).
-- All nodes move to this version together (the old code renews `room_owner.lease_until`).
ALTER TABLE nodes ADD COLUMN lease_until timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE room_owner DROP COLUMN lease_until;
