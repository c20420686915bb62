-- 0006_write_count: write_count counts the committed Updates, raised in
-- each Update's own transaction (Store.WriteCount), so that every replica
-- can keep cached answers exactly: an answer tagged with the count is
-- served only while the count is unchanged.

CREATE TABLE write_count (
    singleton integer PRIMARY KEY CHECK (singleton = 1),
    n         bigint NOT NULL CHECK (n >= 0)
);

INSERT INTO write_count (singleton, n) VALUES (1, 0);
