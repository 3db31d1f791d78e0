package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;

/**
 * MySQL 8 and MariaDB 10.11 or later, with InnoDB tables (either JDBC driver: both report the server's product
 * name). See {@link RowDialect} for what a dialect supplies; here is what these two databases write otherwise:
 * <ul>
 * <li>The clock is {@code UTC_TIMESTAMP(6)} (fixed when the statement starts, where PostgreSQL's is fixed when the
 * transaction starts: {@link #clockPerStatement()}) and {@code lease_until} a {@code DATETIME(6)} in UTC: a
 * {@code TIMESTAMP} would be compared in the session's time zone, where an hour repeats when daylight saving time
 * ends. Microseconds since the epoch are a {@code TIMESTAMPDIFF} from 1970, for the same reason (no time
 * zone).</li>
 * <li>Tokens are the template's, unchanged: the database clock in microseconds kept above the row's last token
 * ({@code GREATEST(fencing_token + 1, clock)}) under the row lock of the upsert, and for permits the name row locked
 * with {@code SELECT ... FOR UPDATE}. No counter row: it would make every acquire of every name wait for the same
 * row, where the clock needs no shared row and also keeps tokens increasing after a row is swept.</li>
 * <li>The acquire is {@code INSERT ... ON DUPLICATE KEY UPDATE}, which locks the row as PostgreSQL's
 * {@code ON CONFLICT} does. Neither database can return the row from it, so the statement answers the token as the
 * key it generated ({@link #acquireAnswersKey()}): {@code LAST_INSERT_ID(token)} where the request takes the row,
 * {@code LAST_INSERT_ID(0)} where it is refused (the insert's row is evaluated before the key turns out to exist, so
 * a refusal must clear it); both drivers then answer that key, or none for 0, in the statement's own reply. One
 * statement in auto-commit, where reading the token back took a transaction of five round trips. Its assignments
 * run left to right, each seeing the ones before: the token and the owner are decided on the row as it was, then
 * the lease and the holder follow the owner ({@code VALUES(col)}, deprecated but kept by MySQL 8, is the only form
 * both accept). The session's {@code LAST_INSERT_ID()} is this statement's afterwards, as after any insert.</li>
 * <li>A set of keys is one JSON array parameter read with {@code JSON_TABLE} (no SQL arrays).</li>
 * <li>{@code DELETE ... LIMIT} batches the sweep; InnoDB re-checks the whole condition on the row it locks.</li>
 * <li>Errors: a duplicate key is 1062 (state 23000, not 23505), a lock wait timeout 1205 (3572 for
 * {@code NOWAIT}), a deadlock 1213 (state 40001, retried by the caller as contention: InnoDB has rolled the whole
 * transaction back, so nothing was half granted), a missing table 1146.</li>
 * </ul>
 * Drivers must report found rows, not changed rows (the default of both Connector/J; not
 * {@code useAffectedRows=true}): a renewal within the same microsecond changes nothing yet succeeded.
 */
record MySqlDialect() implements RowDialect {

    @Override
    public boolean serves(String productName) {
        String name = productName.toLowerCase(Locale.ROOT);
        return name.contains("mysql") || name.contains("mariadb");
    }

    @Override
    public String now() {
        return "UTC_TIMESTAMP(6)";
    }

    /** {@code UTC_TIMESTAMP} is fixed per statement, not per transaction. */
    @Override
    public boolean clockPerStatement() {
        return true;
    }

    @Override
    public String clockMicros() {
        return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
    }

    @Override
    public String plusMillis(String time) {
        return "(" + time + " + INTERVAL (" + integer("?") + " * 1000) MICROSECOND)";
    }

    /** {@code CAST} knows {@code SIGNED}, not {@code BIGINT} (a 64-bit integer either way). */
    @Override
    public String integer(String expression) {
        return "CAST(" + expression + " AS SIGNED)";
    }

    /**
     * The parameters are those of the {@code VALUES} row (name, owner, lease, holder), which the update reads with
     * {@code VALUES(col)}. After the owner's assignment, the row has the request's owner token exactly when it was
     * taken (owner tokens are unique per acquisition), so the lease and the holder follow that.
     */
    @Override
    public String acquire(String table, RowRules rules) {
        String takeable = rules.takeable("", "VALUES(owner_token)");
        String taken = "owner_token = VALUES(owner_token)";
        return "INSERT INTO " + table + " (lock_name, owner_token, fencing_token, lease_until, holder)"
                + " VALUES (?, ?, LAST_INSERT_ID(" + rules.firstToken() + "), " + rules.leaseEnd() + ", ?)"
                + " ON DUPLICATE KEY UPDATE"
                + " fencing_token = IF(" + takeable + ", LAST_INSERT_ID(" + rules.nextToken("", "VALUES(owner_token)")
                + "), fencing_token + LAST_INSERT_ID(0)),"
                + " owner_token = IF(" + takeable + ", VALUES(owner_token), owner_token),"
                + " lease_until = IF(" + taken + ", VALUES(lease_until), lease_until),"
                + " holder = IF(" + taken + ", VALUES(holder), holder)";
    }

    @Override
    public boolean acquireAnswersKey() {
        return true;
    }

    @Override
    public String deleteExpired(String table, String expired) {
        return "DELETE FROM " + table + " WHERE " + expired + " LIMIT ?";
    }

    @Override
    public boolean repeatsSweepCondition() {
        return false;
    }

    /** The keys as rows of a JSON array, compared in the table's binary collation. */
    @Override
    public String keyIn() {
        return "lock_name IN (SELECT k FROM JSON_TABLE(?, '$[*]' COLUMNS (k VARCHAR(255) CHARACTER SET utf8mb4"
                + " COLLATE utf8mb4_bin PATH '$')) AS slot_keys)";
    }

    @Override
    public void bindKeys(Connection connection, PreparedStatement statement, int index, String[] keys)
            throws SQLException {
        StringBuilder json = new StringBuilder("[");
        for (String key : keys) {
            json.append(json.length() > 1 ? ",\"" : "\"");
            key.chars().forEach(c -> json.append(c == '"' || c == '\\' ? "\\" + (char) c
                    : c < 0x20 ? String.format(Locale.ROOT, "\\u%04x", c) : String.valueOf((char) c)));
            json.append('"');
        }
        statement.setString(index, json.append(']').toString());
    }

    /** Also a duplicate key (1062) of two inserts of a new name, which MySQL reports as state 23000. */
    @Override
    public boolean isContention(SQLException ex) {
        return ex.getErrorCode() == 1062 || RowDialect.super.isContention(ex);
    }

    /** Lock wait timeout exceeded (1205), or not granted at once with {@code NOWAIT} (3572, MySQL). */
    @Override
    public boolean isLockTimeout(SQLException ex) {
        return ex.getErrorCode() == 1205 || ex.getErrorCode() == 3572;
    }

    /** Table does not exist: 1146 (state 42S02). */
    @Override
    public boolean isMissingTable(SQLException ex) {
        return ex.getErrorCode() == 1146 || "42S02".equals(ex.getSQLState());
    }
}
