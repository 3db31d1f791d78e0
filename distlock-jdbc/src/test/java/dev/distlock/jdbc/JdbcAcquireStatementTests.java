package dev.distlock.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockType;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.jdbc.Answers.answer;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquire is one statement, one round trip, on every database: it takes a free row, takes over an expired one and
 * answers a retry of the same request with its own token, each with a single statement and no transaction of its
 * own (no {@code setAutoCommit}, no {@code commit}); a refusal adds only the read of who holds the name. On MariaDB
 * through both drivers the token comes back as the statement's generated key ({@code LAST_INSERT_ID(token)}),
 * where reading it back took a transaction of five round trips.
 */
class JdbcAcquireStatementTests {

    /** What the store asked of its connections: statements prepared, and transaction calls. */
    private final List<String> calls = new CopyOnWriteArrayList<>();

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB,
            TestDatabase.MARIADB_MYSQL_DRIVER })
    void everyAcquireIsOneStatementThatAnswersItsToken(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable("one_lock");
            HikariDataSource pool = database.pool(2);
            try (JdbcLockStore store = new JdbcLockStore(recording(pool),
                    JdbcLockConfig.defaults().withTableName("one_lock"))) {
                LockRequest first = request("one", "owner-a", 60_000);
                long token = granted(store.attempt(first, Waiting.LAST_TRY));
                assertThat(calls).as("a free name").containsExactly("prepare");
                assertThat(token).isEqualTo(tokenInRow(database));

                calls.clear();
                assertThat(granted(store.attempt(first, Waiting.LAST_TRY))).as("a retry of the same request")
                        .isEqualTo(token);
                assertThat(calls).containsExactly("prepare");

                calls.clear();
                Attempt refused = answer(store.attempt(request("one", "owner-b", 60_000), Waiting.LAST_TRY));
                assertThat(refused).isNotInstanceOf(Attempt.Granted.class);
                assertThat(calls).as("a refusal, then who holds the name").containsExactly("prepare", "prepare");
                assertThat(tokenInRow(database)).as("a refusal leaves the token").isEqualTo(token);

                // The lease ended an hour ago on the database clock: the row is taken over with a higher token.
                database.update("UPDATE one_lock SET lease_until = " + (db.startsWith("mariadb")
                        ? "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR" : "CURRENT_TIMESTAMP - INTERVAL '1' HOUR"));
                calls.clear();
                long next = granted(store.attempt(request("one", "owner-c", 60_000), Waiting.LAST_TRY));
                assertThat(calls).as("an expired row taken over").containsExactly("prepare");
                assertThat(next).isGreaterThan(token).isEqualTo(tokenInRow(database));
            }
        }
    }

    private static long tokenInRow(TestDatabase database) throws Exception {
        return ((Number) database.queryValue("SELECT fencing_token FROM one_lock WHERE lock_name = ?", "one"))
                .longValue();
    }

    private static long granted(java.util.concurrent.CompletionStage<Attempt> attempt) {
        Attempt answered = answer(attempt);
        assertThat(answered).isInstanceOf(Attempt.Granted.class);
        return ((Attempt.Granted) answered).fencingToken();
    }

    private static LockRequest request(String name, String owner, long leaseMillis) {
        return new LockRequest(name, LockType.REENTRANT, owner, Duration.ofSeconds(1), Duration.ofMillis(leaseMillis),
                true);
    }

    /** A data source whose connections record every statement prepared and every transaction call. */
    private DataSource recording(DataSource target) {
        return Proxies.of(DataSource.class, (proxy, method, args) -> {
            Object result = method.invoke(target, args);
            if (!(result instanceof Connection connection)) {
                return result;
            }
            return Proxies.of(Connection.class, (p, m, a) -> {
                switch (m.getName()) {
                    case "prepareStatement" -> calls.add("prepare");
                    case "setAutoCommit", "commit", "rollback" -> calls.add(m.getName());
                    default -> {
                        // Reads of the connection's state are not round trips the store asked for.
                    }
                }
                return m.invoke(connection, a);
            });
        });
    }
}
