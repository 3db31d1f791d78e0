package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * What one database adds to the row template of the {@link JdbcLockStore}: SQL text and error codes, nothing of the
 * algorithm. The template ({@link RowTemplate}, with its statements {@link LockRowSql} and {@link PermitRowSql} and
 * its rules {@link RowRules}) decides when a row may be taken, which token comes next, that a release keeps the
 * fencing floor, what a sweep may delete and how permits lie in rows; a dialect only says how its database writes
 * that down.
 * <p>
 * A dialect supplies exactly these, and nothing else differs between databases (where the SQL standard serves
 * both H2 and PostgreSQL, this interface writes it once as a default method, which a dialect overrides only for a
 * database that writes it otherwise):
 * <ol>
 * <li>{@link #serves(String)}: whether it is the dialect of a database, by
 * {@link java.sql.DatabaseMetaData#getDatabaseProductName()} (the store picks the dialect from the first
 * connection, as {@link #of(String)} does);</li>
 * <li>the database clock: {@link #now()} (a timestamp of at least millisecond precision) and {@link #clockMicros()}
 * (the same clock in microseconds since the epoch, a {@code BIGINT}), and whether it is read per statement or per
 * transaction, {@link #clockPerStatement()};</li>
 * <li>time arithmetic: {@link #plusMillis(String)}, a timestamp plus a number of milliseconds given as one
 * parameter, and {@link #integer(String)}, a parameter read as a {@code BIGINT};</li>
 * <li>the acquire: {@link #acquire(String, RowRules)}, one atomic insert-or-take-over (an upsert) that answers the
 * fencing token, written with the conditions and expressions that {@link RowRules} gives it: with
 * {@code RETURNING}, or on a database without it as the key the statement generated
 * ({@link #acquireAnswersKey()});</li>
 * <li>the batched delete of the sweep: {@link #deleteExpired(String, String)} and whether it repeats its condition,
 * {@link #repeatsSweepCondition()};</li>
 * <li>the locking clause of a read that locks its row until the transaction ends: {@link #forUpdate()};</li>
 * <li>a set of keys as one parameter (the slot rows of a name with permits): {@link #keyIn()} and
 * {@link #bindKeys};</li>
 * <li>error codes: {@link #isLockTimeout(SQLException)} (the part of {@link #isContention(SQLException)} that
 * differs) and {@link #isMissingTable(SQLException)}.</li>
 * </ol>
 * The lock table's script {@code schema-<platform>.sql} is the other per-database part, found by
 * {@link JdbcLockSchemaInitializer} from the platform name, outside this interface.
 * <p>
 * Adding a database is writing one more dialect class, as {@link MySqlDialect} added MySQL 8 and MariaDB 10.11+:
 * implement this interface, name it in {@code permits} and in {@link #ALL}, and add its schema script; the template
 * (the algorithm, the permits, the sweep) does not change. A database without SQL arrays binds the keys in another
 * one-parameter form (MySQL: a JSON array read with {@code JSON_TABLE}).
 */
sealed interface RowDialect permits H2Dialect, PostgresDialect, MySqlDialect {

    /** Every dialect, tried in this order. */
    List<RowDialect> ALL = List.of(new PostgresDialect(), new H2Dialect(), new MySqlDialect());

    /**
     * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
     * @return the dialect of that database
     * @throws IllegalStateException for a database without one
     */
    static RowDialect of(String productName) {
        for (RowDialect dialect : ALL) {
            if (dialect.serves(productName)) {
                return dialect;
            }
        }
        throw new IllegalStateException("distlock-jdbc supports PostgreSQL, MySQL, MariaDB and H2, not "
                + productName);
    }

    /**
     * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
     * @return whether this is the dialect of that database
     */
    boolean serves(String productName);

    /** @return the database clock now, as a timestamp; read when the statement starts */
    default String now() {
        return "CURRENT_TIMESTAMP";
    }

    /**
     * @return true when {@link #now()} is read anew by every statement of a transaction (MySQL), false when it is
     *         the same for the whole transaction (PostgreSQL, H2): the renewal of permits then extends the name
     *         row's lease once more after the slot rows', so that it still ends no earlier than theirs
     */
    default boolean clockPerStatement() {
        return false;
    }

    /** @return the database clock in microseconds since the epoch, as a {@code BIGINT} */
    default String clockMicros() {
        return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000 AS BIGINT)";
    }

    /**
     * @param time a timestamp expression
     * @return that time plus {@code ?} milliseconds (one {@code BIGINT} parameter, which may be negative)
     */
    default String plusMillis(String time) {
        return time + " + " + integer("?") + " * INTERVAL '0.001' SECOND";
    }

    /**
     * @param expression an expression, usually a parameter ({@code ?})
     * @return it as a {@code BIGINT} (a database whose {@code CAST} knows no {@code BIGINT} writes it otherwise)
     */
    default String integer(String expression) {
        return "CAST(" + expression + " AS BIGINT)";
    }

    /**
     * The acquire of a lock: one atomic statement, run with {@link PreparedStatement#executeQuery()}, whose
     * parameters are the lock name, the owner token and the lease in milliseconds. It inserts the row of a new name
     * with {@link RowRules#firstToken()}, or updates the existing row where {@link RowRules#takeable} holds, setting
     * the owner, {@link RowRules#nextToken} and the lease end; it answers one row with the row's fencing token when
     * granted, none when refused. Two callers must not both take the row (a duplicate key or a lock wait failure
     * of the loser is {@link #isContention contention}).
     *
     * @param table the lock table
     * @param rules the template's conditions and expressions
     * @return the statement
     */
    String acquire(String table, RowRules rules);

    /**
     * @return false when {@link #acquire} is a query whose {@code RETURNING} row holds the token (no row: refused);
     *         true when it is an update that answers the token as the key it generated
     *         ({@link java.sql.Statement#getGeneratedKeys()}; no key, or 0: refused), for a database without
     *         {@code RETURNING}. Either way one statement, one round trip.
     */
    default boolean acquireAnswersKey() {
        return false;
    }

    /**
     * @param table the lock table
     * @param expired the condition of a row the sweep may delete ({@link RowRules#sweepable()}, two parameters)
     * @return the delete of at most a batch of those rows; parameters the condition's, the batch size, and the
     *         condition's once more when {@link #repeatsSweepCondition()}
     */
    String deleteExpired(String table, String expired);

    /**
     * @return whether {@link #deleteExpired} repeats the condition outside the selection of the batch, for a
     *         database that re-checks only that outer condition on a row that changed meanwhile (a name acquired
     *         again between the selection and the delete must be kept)
     */
    boolean repeatsSweepCondition();

    /** @return the clause after a {@code SELECT} that locks the rows read until the transaction ends */
    default String forUpdate() {
        return "FOR UPDATE";
    }

    /**
     * @return a condition that {@code lock_name} is one of a set of keys, given as one parameter set by
     *         {@link #bindKeys} (one parameter, so that one statement serves a batch of names): an SQL array here
     */
    default String keyIn() {
        return "lock_name = ANY(?)";
    }

    /**
     * Sets the parameter of {@link #keyIn()}.
     *
     * @param connection the statement's connection
     * @param statement the statement
     * @param index the parameter's index
     * @param keys the keys
     * @throws SQLException when the driver refuses them
     */
    default void bindKeys(Connection connection, PreparedStatement statement, int index, String[] keys)
            throws SQLException {
        statement.setArray(index, connection.createArrayOf("VARCHAR", keys));
    }

    /**
     * @param ex a failure of an acquire
     * @return true when another caller won a race for the same row (a duplicate key of two inserts of a new name, a
     *         serialization failure or deadlock victim, a row lock not granted in time): as good as busy
     */
    default boolean isContention(SQLException ex) {
        String state = ex.getSQLState();
        return "23505".equals(state) || (state != null && state.startsWith("40")) || isLockTimeout(ex);
    }

    /**
     * The part of {@link #isContention} that differs: the standard states (a duplicate key, 23505; class 40,
     * serialization failure or deadlock) are the same on every database, a row lock not granted in time is not.
     *
     * @param ex a failure of an acquire
     * @return true when it says that a row lock was not granted in time (or, on H2, that the row changed under the
     *         statement)
     */
    boolean isLockTimeout(SQLException ex);

    /**
     * @param ex a failure
     * @return true when it says that the lock table does not exist
     */
    boolean isMissingTable(SQLException ex);
}
