package dev.distlock.jdbc;

import dev.distlock.spi.Waiting;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockType;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.jdbc.Answers.answer;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clock skew between application nodes does not matter: every lease is judged by the database clock. Shown two
 * ways that fail if a JVM clock were used: (1) every value the store sends the database is recorded, and none is a
 * time (no date-time type, no number that could be an epoch time): the only numbers are lease durations and, in a
 * release, the fencing token the database issued; and (2)
 * the lease end in the row is the database's {@code CURRENT_TIMESTAMP} (MySQL/MariaDB: {@code UTC_TIMESTAMP}) plus
 * the lease, measured on the database. On H2 and MariaDB (through either driver).
 */
class JdbcLeaseClockTests {

    /** Epoch milliseconds are above 10^12 since 2001; lease durations in the tests are far below. */
    private static final long EPOCH_MILLIS_FLOOR = 1_000_000_000_000L;

    private final List<Object> sent = new CopyOnWriteArrayList<>();

    private final List<String> statements = new CopyOnWriteArrayList<>();

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.MARIADB_MYSQL_DRIVER })
    void theStoreSendsNoTimeOnlyDurationsAndTheDatabaseClockSetsTheLease(String db) throws Exception {
        long[] token = { 0 }; // the one other number: the release gives the database back the token it issued
        boolean mysql = !TestDatabase.H2.equals(db);
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable("clock_lock");
            HikariDataSource pool = database.pool(2);
            JdbcLockStore store = new JdbcLockStore(recording(pool), JdbcLockConfig.defaults()
                    .withTableName("clock_lock"));
            LockRequest first = request("skew", "owner-a", 60_000);
            Attempt granted = answer(store.attempt(first, Waiting.LAST_TRY));
            assertThat(granted).isInstanceOf(Attempt.Granted.class);
            token[0] = ((Attempt.Granted) granted).fencingToken();
            assertThat((answer(store.attempt(request("skew", "owner-b", 60_000), Waiting.upTo(Duration.ofMillis(1000)))) instanceof Attempt.Granted)).isFalse();
            Lease lease = lease(first, ((Attempt.Granted) granted).fencingToken());
            assertThat(answer(store.renew(List.of(lease)))).containsExactly(RenewalResult.RENEWED);

            // The lease ends a minute after the database's now, whatever the JVM clock says.
            Object remaining = database.queryValue(mysql
                    ? "SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), lease_until) DIV 1000 FROM clock_lock"
                            + " WHERE lock_name = ?"
                    : "SELECT DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, lease_until) FROM clock_lock"
                            + " WHERE lock_name = ?", "skew");
            assertThat(((Number) remaining).longValue()).isBetween(55_000L, 60_000L);
            assertThat(answer(store.release(lease))).isEqualTo(ReleaseResult.RELEASED);
            store.close();
        }
        assertThat(statements).isNotEmpty().allSatisfy(sql -> assertThat(sql).contains(mysql ? "UTC_TIMESTAMP" : "CURRENT_TIMESTAMP"));
        assertThat(sent).isNotEmpty().allSatisfy(value -> {
            assertThat(value).isNotInstanceOfAny(java.util.Date.class, java.time.temporal.Temporal.class);
            if (value instanceof Number number && number.longValue() != token[0]) {
                assertThat(number.longValue()).as("a duration, not a time").isEqualTo(60_000L)
                        .isLessThan(EPOCH_MILLIS_FLOOR);
            }
        });
    }

    private static LockRequest request(String name, String owner, long leaseMillis) {
        return new LockRequest(name, LockType.REENTRANT, owner, Duration.ofSeconds(1), Duration.ofMillis(leaseMillis),
                true);
    }

    private static Lease lease(LockRequest request, long token) {
        return new Lease() {
            @Override
            public LockRequest request() {
                return request;
            }

            @Override
            public long fencingToken() {
                return token;
            }
        };
    }

    /** A data source whose prepared statements record their SQL and every parameter value the store sets. */
    private DataSource recording(DataSource target) {
        return Proxies.of(DataSource.class, (proxy, method, args) -> {
            Object result = method.invoke(target, args);
            return result instanceof Connection connection ? recording(connection) : result;
        });
    }

    private Connection recording(Connection target) {
        return Proxies.of(Connection.class, (proxy, method, args) -> {
            Object result = method.invoke(target, args);
            if (result instanceof PreparedStatement statement) {
                statements.add((String) args[0]);
                return Proxies.of(PreparedStatement.class, (p, m, a) -> {
                    if (m.getName().startsWith("set") && a != null && a.length == 2 && a[0] instanceof Integer) {
                        sent.add(a[1]);
                    }
                    return m.invoke(statement, a);
                });
            }
            return result;
        });
    }
}
