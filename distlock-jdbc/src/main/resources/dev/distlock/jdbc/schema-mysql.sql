-- The lock table of distlock-jdbc on MySQL 8 and MariaDB 10.11+ (distlock.jdbc.initialize-schema runs it with the
-- configured distlock.jdbc.table-name in place of distlock_lock). Safe to run again.
-- One row per lock name locked recently: after release (owner_token NULL) or expiry it stays for the row retention
-- (1 min by default), then the store deletes it; a name locked again gets a token above the deleted one.
-- A name used with permits (several holders at once) has its row, whose owner_token is the marker '#<permits>'
-- (no owner token starts with '#') and whose lease outlasts every holder's, and one row per holder,
-- '<name>' U+001F '<index>' (index 0 to permits - 1, reused), which holds that holder as a lock's row does.
-- InnoDB for row locks and transactions; a binary collation so that names differ as they do on PostgreSQL (case).
CREATE TABLE IF NOT EXISTS distlock_lock (
    lock_name     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    -- The holder's owner token (one per acquisition); NULL when free; '#<permits>' on a name used with permits.
    owner_token   VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    -- The last fencing token issued for the name (to any of its permit holders); a permit's row: that holder's.
    fencing_token BIGINT      NOT NULL,
    -- End of the holder's lease on the database clock, in UTC (UTC_TIMESTAMP: no time zone, no repeated hour);
    -- the release time once released; the row is free once it has passed.
    lease_until   DATETIME(6) NOT NULL,
    -- The holder's identity (distlock.instance-id), shown by describe and GET /actuator/distlock/{name}; NULL on a
    -- marker row.
    holder        VARCHAR(255) CHARACTER SET utf8mb4
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
