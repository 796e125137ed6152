-- Maharajah cluster schema, version 2: every node follows the players and finished games the
-- others write. Each write of a player gives its row a new revision from one sequence, so a
-- node reads what changed since the last revision it saw (`WHERE rev > $1 ORDER BY rev`), and
-- a rated end can check that a player's row is still the revision it was computed from.
-- Writers of `players` (and of `games`) hold a transaction-level advisory lock while they take
-- the next number and commit, so numbers become visible in order: a reader that saw revision
-- n has seen every revision before it.

CREATE SEQUENCE players_rev;
ALTER TABLE players ADD COLUMN rev bigint;
UPDATE players SET rev = nextval('players_rev');
ALTER TABLE players ALTER COLUMN rev SET DEFAULT nextval('players_rev'),
                    ALTER COLUMN rev SET NOT NULL;
CREATE UNIQUE INDEX players_by_rev ON players (rev);
