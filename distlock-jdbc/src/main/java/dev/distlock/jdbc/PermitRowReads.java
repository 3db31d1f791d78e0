package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The reads of a transaction on a name used with permits ({@link PermitTransactions}): its name row, locked until
 * the transaction ends, and its slot rows ({@link PermitRows}).
 */
final class PermitRowReads {

    /**
     * The name row as locked.
     *
     * @param owner its owner token: a lock's holder, a marker of permits, or null when free
     * @param lastToken the last token issued for the name
     * @param live whether its lease runs
     * @param clockMicros the database clock then
     */
    record NameRow(@Nullable String owner, long lastToken, boolean live, long clockMicros) {

        /** @return the next token: above the last, and at least the clock (so above a swept row's) */
        long nextToken() {
            return Math.max(lastToken + 1, clockMicros);
        }
    }

    /**
     * One slot row as read.
     *
     * @param owner its holder's owner token, null when free
     * @param fencingToken its holder's token
     * @param live whether it is held: an owner whose lease runs
     */
    record Slot(@Nullable String owner, long fencingToken, boolean live) {
    }

    private final StatementPreparer statements;

    /** @param statements how statements are prepared */
    PermitRowReads(StatementPreparer statements) {
        this.statements = statements;
    }

    /** @return the name row, locked until the transaction ends; null for a name without a row */
    @Nullable NameRow lockNameRow(Connection connection, RowSql sql, String name) throws SQLException {
        try (PreparedStatement lock = statements.prepare(connection, sql.permits().lockNameRow())) {
            lock.setString(1, name);
            try (ResultSet rows = lock.executeQuery()) {
                return rows.next() ? new NameRow(rows.getString(1), rows.getLong(2), rows.getBoolean(3),
                        rows.getLong(4)) : null;
            }
        }
    }

    /** @return the name's slot rows that exist, by key */
    Map<String, Slot> slots(Connection connection, RowSql sql, String name, int permits) throws SQLException {
        Map<String, Slot> slots = new HashMap<>();
        try (PreparedStatement read = statements.prepare(connection, sql.permits().slots())) {
            sql.dialect().bindKeys(connection, read, 1, PermitRows.slots(name, permits));
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    slots.put(rows.getString(1), new Slot(rows.getString(2), rows.getLong(3),
                            rows.getString(2) != null && rows.getBoolean(4)));
                }
            }
        }
        return slots;
    }

    /** @return whether any of the slots is held */
    static boolean anyLive(Map<String, Slot> slots) {
        return slots.values().stream().anyMatch(Slot::live);
    }
}
