-- Runs at every start (spring.sql.init.mode=always); safe to run again and from several instances at once.
-- The same SQL works on PostgreSQL and on H2 in PostgreSQL mode.
CREATE TABLE IF NOT EXISTS product (
    id         BIGINT       NOT NULL PRIMARY KEY,
    name       VARCHAR(100) NOT NULL,
    stock      INTEGER      NOT NULL CHECK (stock >= 0),
    -- Highest fencing token that wrote this row: a lock holder with a lower token is refused.
    last_fence BIGINT       NOT NULL DEFAULT 0
);
