package dev.distlock.jdbc.fencing;

import java.util.Arrays;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.distlock.fencing.FencingTokens;
import dev.distlock.fencing.StaleTokenException;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Guarded writes to database rows: each row keeps, in a {@code BIGINT} column ({@code fence} unless
 * {@link #withColumn configured}), the highest fencing token that wrote it, and a write carrying a lower token changes
 * nothing and throws {@link StaleTokenException}. So a holder whose lock was lost (a long pause, a partition) cannot
 * overwrite what a newer holder wrote, even though it still believes it holds the lock.
 * <p>
 * {@link #update(String, String, String, Object...) update} runs one statement,
 * {@code UPDATE t SET fence = ?, <set> WHERE (<where>) AND (fence IS NULL OR fence <= ?)}: an equal token passes (a
 * holder writes several times under one lock), a lower one matches no row. Only when no row changed is the row read
 * again, to tell a stale token (thrown) from a row that does not exist ({@code 0} returned). The token is the current
 * lock scope's ({@link FencingTokens#current()}) unless one is passed.
 * <p>
 * For a read-check-update (read the stock, check it, write the new value), {@link #claim(String, String, Object...)
 * claim} the row first, in the same transaction: it writes the token alone and locks the row until the transaction
 * ends, so a newer holder's claim waits for this transaction and then reads what it wrote, and this holder's claim is
 * refused if a newer holder came first. Repository methods ({@code @Modifying @Query}) write the guard themselves and
 * hand their row count to {@link #check(int, String, String, Object...) check}.
 * <p>
 * Table, column and clauses are SQL written by the application, never user input: values go in {@code args}, bound
 * as {@code ?} parameters in the order they appear (the set clause's, then the where clause's). Statements run
 * through Spring's {@link JdbcOperations}, so they join the caller's Spring-managed transaction. A where clause that
 * matches several rows guards each row by itself; {@link StaleTokenException} is thrown when none changed.
 */
public final class FencedJdbc {

    /** The column that keeps a row's highest fencing token, unless configured otherwise. */
    public static final String DEFAULT_COLUMN = "fence";

    // Plain or quoted identifiers, optionally qualified (catalog.schema.table): names, not SQL.
    private static final String PART = "([A-Za-z_][A-Za-z0-9_$]*|\"[^\"]+\"|`[^`]+`)";

    private static final Pattern COLUMN = Pattern.compile(PART);

    private static final Pattern TABLE = Pattern.compile(PART + "(\\." + PART + "){0,2}");

    private final JdbcOperations jdbc;

    private final String column;

    private FencedJdbc(JdbcOperations jdbc, String column) {
        this.jdbc = jdbc;
        this.column = identifier(COLUMN, column, "column");
    }

    /**
     * @param dataSource the database (its Spring-managed transactions are joined)
     * @return guarded writes to it, with the token in column {@value #DEFAULT_COLUMN}
     */
    public static FencedJdbc of(DataSource dataSource) {
        return new FencedJdbc(new JdbcTemplate(dataSource), DEFAULT_COLUMN);
    }

    /**
     * @param jdbc a {@link JdbcTemplate} (the one Spring Boot configures, or the one behind a {@code JdbcClient})
     * @return guarded writes through it, with the token in column {@value #DEFAULT_COLUMN}
     */
    public static FencedJdbc of(JdbcOperations jdbc) {
        return new FencedJdbc(jdbc, DEFAULT_COLUMN);
    }

    /**
     * @param column the {@code BIGINT} column that keeps each row's highest fencing token
     * @return guarded writes that keep the token in that column
     * @throws IllegalArgumentException when it is not a column name
     */
    public FencedJdbc withColumn(String column) {
        return new FencedJdbc(jdbc, column);
    }

    /** @return the column that keeps each row's highest fencing token */
    public String column() {
        return column;
    }

    /**
     * The statement that adds the fencing column to an existing table. The same on H2, PostgreSQL and MySQL /
     * MariaDB: {@code ALTER TABLE <table> ADD COLUMN fence BIGINT}. The column may stay {@code NULL} (a row never
     * written under a lock takes any token) or be {@code NOT NULL DEFAULT 0}.
     *
     * @param table the table
     * @return the DDL statement
     */
    public String addColumnSql(String table) {
        return "ALTER TABLE " + identifier(TABLE, table, "table") + " ADD COLUMN " + column + " BIGINT";
    }

    /**
     * Writes the row(s) with the current lock scope's fencing token, unless a newer holder already wrote them.
     *
     * @param table the table
     * @param set the assignments, e.g. {@code "stock = ?"}; blank to write the token alone (see {@link #claim})
     * @param where the rows, e.g. {@code "id = ?"}
     * @param args the parameters of {@code set}, then those of {@code where}
     * @return the rows written; {@code 0} when no row matches {@code where}
     * @throws StaleTokenException when a matching row holds a higher token (nothing was written)
     * @throws IllegalStateException outside a lock scope (pass the token instead)
     */
    public int update(String table, String set, String where, @Nullable Object... args) {
        return update(FencingTokens.current(), table, set, where, args);
    }

    /**
     * Writes the row(s) with the given fencing token, unless a newer holder already wrote them.
     *
     * @param token the fencing token of the caller's lock ({@code LockHandle.fencingToken()})
     * @param table the table
     * @param set the assignments, e.g. {@code "stock = ?"}; blank to write the token alone (see {@link #claim})
     * @param where the rows, e.g. {@code "id = ?"}
     * @param args the parameters of {@code set}, then those of {@code where}
     * @return the rows written; {@code 0} when no row matches {@code where}
     * @throws StaleTokenException when a matching row holds a higher token (nothing was written)
     */
    public int update(long token, String table, String set, String where, @Nullable Object... args) {
        int setParameters = parameters(set);
        if (setParameters + parameters(where) != args.length) {
            throw new IllegalArgumentException("The set clause '" + set + "' and the where clause '" + where
                    + "' have " + (setParameters + parameters(where)) + " parameters, but " + args.length
                    + " arguments were given");
        }
        Object[] parameters = new Object[args.length + 2];
        parameters[0] = token;
        System.arraycopy(args, 0, parameters, 1, args.length);
        parameters[parameters.length - 1] = token;
        String assignments = set.isBlank() ? "" : ", " + set;
        int rows = jdbc.update("UPDATE " + identifier(TABLE, table, "table") + " SET " + column + " = ?" + assignments
                + " WHERE (" + requireWhere(where) + ") AND " + guard(), parameters);
        return check(rows, token, table, where, Arrays.copyOfRange(args, setParameters, args.length));
    }

    /**
     * Writes the current lock scope's token alone to the row(s): the first statement of a read-check-update, in
     * the same transaction. The row stays locked until the transaction ends.
     *
     * @param table the table
     * @param where the rows, e.g. {@code "id = ?"}
     * @param args the parameters of {@code where}
     * @return the rows claimed; {@code 0} when no row matches {@code where}
     * @throws StaleTokenException when a matching row holds a higher token
     * @throws IllegalStateException outside a lock scope (pass the token instead)
     */
    public int claim(String table, String where, @Nullable Object... args) {
        return update(FencingTokens.current(), table, "", where, args);
    }

    /**
     * Writes the given token alone to the row(s), as {@link #claim(String, String, Object...)}.
     *
     * @param token the fencing token of the caller's lock
     * @param table the table
     * @param where the rows, e.g. {@code "id = ?"}
     * @param args the parameters of {@code where}
     * @return the rows claimed; {@code 0} when no row matches {@code where}
     * @throws StaleTokenException when a matching row holds a higher token
     */
    public int claim(long token, String table, String where, @Nullable Object... args) {
        return update(token, table, "", where, args);
    }

    /**
     * Judges the row count of a guarded write made elsewhere (a repository's {@code @Modifying @Query} with
     * {@code fence = :token} in its set clause and {@link #guard()} in its where clause) with the current lock
     * scope's token: {@code repository.writeStock(id, stock, FencingTokens.current())} goes in as
     * {@code updatedRows}.
     *
     * @param updatedRows the rows the guarded write changed
     * @param table the table written
     * @param where the rows it was to write, e.g. {@code "id = ?"}
     * @param args the parameters of {@code where}
     * @return {@code updatedRows}; {@code 0} when no row matches {@code where}
     * @throws StaleTokenException when nothing was written and a matching row holds a higher token
     */
    public int check(int updatedRows, String table, String where, @Nullable Object... args) {
        return check(updatedRows, FencingTokens.current(), table, where, args);
    }

    /**
     * Judges the row count of a guarded write made elsewhere with the given token, as
     * {@link #check(int, String, String, Object...)}.
     *
     * @param updatedRows the rows the guarded write changed
     * @param token the token it carried
     * @param table the table written
     * @param where the rows it was to write, e.g. {@code "id = ?"}
     * @param args the parameters of {@code where}
     * @return {@code updatedRows}; {@code 0} when no row matches {@code where}
     * @throws StaleTokenException when nothing was written and a matching row holds a higher token
     */
    public int check(int updatedRows, long token, String table, String where, @Nullable Object... args) {
        if (updatedRows > 0) {
            return updatedRows;
        }
        // Only a refused or missing row costs this second statement; tokens only grow, so a higher one read now
        // was there when the write was refused.
        Long seen = jdbc.queryForObject("SELECT MAX(" + column + ") FROM " + identifier(TABLE, table, "table")
                + " WHERE " + requireWhere(where), Long.class, args);
        if (seen != null && seen > token) {
            throw new StaleTokenException(table + " where " + where + " " + Arrays.toString(args), token, seen);
        }
        return 0;
    }

    /**
     * @return the condition a guarded write adds to its where clause, with one parameter (the token), e.g.
     *         {@code (fence IS NULL OR fence <= ?)}; for a repository query, write it with a named parameter
     */
    public String guard() {
        return "(" + column + " IS NULL OR " + column + " <= ?)";
    }

    /** @return the number of {@code ?} parameters of a clause, outside quoted literals, as the JDBC driver counts */
    static int parameters(String clause) {
        int count = 0;
        char quote = 0;
        for (int i = 0; i < clause.length(); i++) {
            char c = clause.charAt(i);
            if (quote != 0) {
                quote = (c == quote) ? 0 : quote;
            }
            else if (c == '\'' || c == '"') {
                quote = c;
            }
            else if (c == '?') {
                count++;
            }
        }
        return count;
    }

    private static String requireWhere(String where) {
        if (where.isBlank()) {
            throw new IllegalArgumentException("A guarded write needs a where clause naming its rows");
        }
        return where;
    }

    private static String identifier(Pattern pattern, String name, String what) {
        if (!pattern.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + name + "' is not a " + what + " name");
        }
        return name;
    }
}
