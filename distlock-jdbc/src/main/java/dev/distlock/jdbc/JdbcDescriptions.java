package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

import dev.distlock.LockInfo;
import org.jspecify.annotations.Nullable;

/**
 * Who holds a lock in the table ({@link dev.distlock.spi.LockStore#describe}): the name's live row, with its
 * {@code holder} column; for a name held with permits, the live slot row whose lease ends last. The lease remaining
 * is counted on the database clock, as leases are. JDBC keeps no line of waiters (they poll): none are told.
 */
final class JdbcDescriptions {

    private JdbcDescriptions() {
    }

    /**
     * @param connection the connection
     * @param sql the database's statements
     * @param table the validated table name
     * @param name the lock name
     * @return the holder, or empty when the name is free
     * @throws SQLException when the database fails
     */
    static Optional<LockInfo> describe(Connection connection, RowSql sql, String table, String name)
            throws SQLException {
        RowRules rules = new RowRules(sql.dialect());
        String columns = "SELECT owner_token, holder, fencing_token, lease_until, " + rules.now() + " FROM " + table
                + " WHERE ";
        Optional<Row> row;
        try (PreparedStatement statement = connection.prepareStatement(columns + "lock_name = ? AND "
                + rules.live(""))) {
            statement.setString(1, name);
            row = first(statement);
        }
        OptionalInt permits = PermitRows.permitsOf(row.map(Row::owner).orElse(null));
        if (permits.isPresent()) {
            try (PreparedStatement statement = connection.prepareStatement(columns + sql.dialect().keyIn() + " AND "
                    + rules.live("") + " ORDER BY lease_until DESC")) {
                sql.dialect().bindKeys(connection, statement, 1, PermitRows.slots(name, permits.getAsInt()));
                row = first(statement);
            }
        }
        return row.map(found -> new LockInfo(name, Objects.requireNonNullElse(found.holder(),
                LockInfo.UNKNOWN_HOLDER), found.fencingToken(), found.remaining(), null));
    }

    private static Optional<Row> first(PreparedStatement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
                return Optional.empty();
            }
            OffsetDateTime leaseUntil = rows.getObject(4, OffsetDateTime.class);
            OffsetDateTime now = rows.getObject(5, OffsetDateTime.class);
            return Optional.of(new Row(rows.getString(1), rows.getString(2), rows.getLong(3),
                    Duration.between(now, leaseUntil)));
        }
    }

    /** A live row as read. */
    private record Row(@Nullable String owner, @Nullable String holder, long fencingToken, Duration remaining) {
    }
}
