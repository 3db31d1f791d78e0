package dev.distlock.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broken pooled connections. A pool evicts a connection whose error has SQLState class 08, but some drivers report
 * a dead connection otherwise (H2: "Database is already closed", 90121, once its server restarted), and a pool that
 * validates only connections idle for a while (HikariCP: 500 ms) then keeps handing a busy lock path the same dead
 * connection. So the store discards such a connection itself.
 */
final class ConnectionPools {

    private static final Logger log = LoggerFactory.getLogger(ConnectionPools.class);

    private ConnectionPools() {
    }

    /**
     * @param ex a failure
     * @return whether it says that the connection is unusable (rather than the statement failing)
     */
    static boolean isBroken(SQLException ex) {
        String state = ex.getSQLState();
        return ex instanceof SQLNonTransientConnectionException || ex instanceof SQLTransientConnectionException
                || ex instanceof SQLRecoverableException || (state != null && state.startsWith("08"));
    }

    /**
     * Takes a broken connection out of its pool: HikariCP's {@code evictConnection(Connection)} when the data
     * source has it (found by name: no compile-time tie to a pool), else {@link Connection#abort} so that a pool
     * validating on borrow sees it closed.
     */
    static void discard(DataSource dataSource, Connection connection) {
        try {
            Method evict = dataSource.getClass().getMethod("evictConnection", Connection.class);
            evict.invoke(dataSource, connection);
            return;
        }
        catch (NoSuchMethodException ex) {
            // Not HikariCP.
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            log.debug("Could not evict a broken connection from {}", dataSource, ex);
        }
        try {
            connection.abort(Runnable::run);
        }
        catch (SQLException | RuntimeException ex) {
            log.debug("Could not abort a broken connection", ex);
        }
    }
}
