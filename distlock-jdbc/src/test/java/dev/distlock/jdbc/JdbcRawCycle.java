package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import javax.sql.DataSource;

import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;

/**
 * A JDBC database's raw cycle: one auto-committed {@code INSERT} of the name's row to take (refused on the primary
 * key while somebody holds it: PostgreSQL's {@code ON CONFLICT DO NOTHING}, MariaDB's {@code INSERT IGNORE}, H2's
 * duplicate-key error), one auto-committed {@code DELETE} of the row and its owner token to give back; a waiter
 * polls. Each node uses the pool the JDBC store's node gets from its fixture (a Hikari pool of the same size and
 * settings): the fixture makes a store node, whose store is closed unused and whose pool is kept. The rows live in
 * a table of their own, so that distlock's table and sweeper never see them.
 */
final class JdbcRawCycle implements RawCycle {

    private static final String TABLE = "raw_cycle_lock";

    /** A deadlock's victim (InnoDB's 1213): the statement was rolled back, nothing changed. */
    private static final String DEADLOCK = "40001";

    private final StoreFixture fixture;

    /** @param fixture the JDBC store's fixture, whose nodes' pools the raw nodes use */
    JdbcRawCycle(StoreFixture fixture) {
        this.fixture = fixture;
    }

    @Override
    public String recipe() {
        return "auto-committed `INSERT` (busy on the primary key) + `DELETE` by name and owner token; waiters poll "
                + "(the store's Hikari pool settings, one pool per node)";
    }

    @Override
    public Node node() throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        fixture.newStore(resources).close();
        DataSource pool = resources.stream().filter(DataSource.class::isInstance).map(DataSource.class::cast)
                .findFirst().orElseThrow(() -> new IllegalStateException(fixture.id() + ": no pool among " + resources));
        String insert;
        try (Connection connection = pool.getConnection(); Statement ddl = connection.createStatement()) {
            String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
            ddl.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (lock_name VARCHAR(255) NOT NULL PRIMARY KEY, "
                    + "owner_token VARCHAR(64) NOT NULL, lease_until BIGINT NOT NULL)");
            String values = " INTO " + TABLE + " (lock_name, owner_token, lease_until) VALUES (?, ?, ?)";
            insert = product.contains("postgres") ? "INSERT" + values + " ON CONFLICT DO NOTHING"
                    : product.contains("mariadb") || product.contains("mysql") ? "INSERT IGNORE" + values
                            : "INSERT" + values;
        }
        catch (Exception | Error ex) {
            closeAll(resources);
            throw ex;
        }
        String delete = "DELETE FROM " + TABLE + " WHERE lock_name = ? AND owner_token = ?";
        return new Node() {
            @Override
            public Held acquire(String name) throws Exception {
                String token = UUID.randomUUID().toString();
                while (!taken(name, token)) {
                    RawCycle.backOff();
                }
                return () -> {
                    while (!deleted(name, token)) {
                        RawCycle.backOff();
                    }
                };
            }

            /** @return false when InnoDB chose the delete as a deadlock's victim: it rolled it back, try again */
            private boolean deleted(String name, String token) throws SQLException {
                try (Connection connection = pool.getConnection();
                        PreparedStatement statement = connection.prepareStatement(delete)) {
                    statement.setString(1, name);
                    statement.setString(2, token);
                    statement.executeUpdate();
                    return true;
                }
                catch (SQLException ex) {
                    if (DEADLOCK.equals(ex.getSQLState())) {
                        return false;
                    }
                    throw ex;
                }
            }

            private boolean taken(String name, String token) throws SQLException {
                try (Connection connection = pool.getConnection();
                        PreparedStatement statement = connection.prepareStatement(insert)) {
                    statement.setString(1, name);
                    statement.setString(2, token);
                    statement.setLong(3, System.currentTimeMillis() + LEASE_MILLIS);
                    return statement.executeUpdate() == 1;
                }
                catch (SQLException ex) {
                    String state = ex.getSQLState() == null ? "" : ex.getSQLState();
                    // The row is there: held (H2's answer; the others ignore the conflict). Or InnoDB's deadlock
                    // between an INSERT IGNORE's shared lock on the row and the holder's DELETE: the insert was
                    // rolled back, the row is still held.
                    if (state.startsWith("23") || state.equals(DEADLOCK)) {
                        return false;
                    }
                    throw ex;
                }
            }

            @Override
            public void close() throws Exception {
                closeAll(resources);
            }
        };
    }

    private static void closeAll(List<AutoCloseable> resources) throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
