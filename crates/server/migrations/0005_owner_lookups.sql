-- Maharajah cluster schema, version 5: a room's owner is looked up by its code only.
--
-- Every group commit checks each of its rows against `room_owner` by code and node. With an
-- index on `node` beside the primary key, a plan made while the table was nearly empty used
-- that index and read all of a node's rooms for every commit (thousands of rows to write a
-- handful). Without it the primary key is the only way in. The lookups by node (a restarted
-- node's rooms, orphans after a node died) are rare and scan the table.
DROP INDEX IF EXISTS room_owner_by_node;

-- And no foreign key from `room_events` to `rooms`: the fence of every change already proves
-- the room (its owner's row references it), and the key's check locked the room's row — a
-- write to its page and a WAL record — for every move. A room is deleted with its changes in
-- one statement, and a room created under a code used before starts with no changes left.
ALTER TABLE room_events DROP CONSTRAINT IF EXISTS room_events_code_fkey;
