package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockType;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.jdbc.Answers.answer;
import static dev.distlock.jdbc.JdbcLockStoreTests.lease;
import static dev.distlock.jdbc.JdbcLockStoreTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What InnoDB answers when the store's transaction cannot have its row lock, through both JDBC drivers (MariaDB
 * Connector/J reports the product "MariaDB", MySQL Connector/J "MySQL"; each maps the server's error codes to SQL
 * states of its own): the MySQL dialect serves both, a lock wait timeout (error 1205) answers busy, and so does a
 * transaction of the store chosen as a deadlock's victim (error 1213); in both cases the rows are as they were,
 * nothing half granted, and the next grant's token is above the last one.
 */
class JdbcMariaDbContentionTests {

    private static final String TABLE = "contention_lock";

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.MARIADB, TestDatabase.MARIADB_MYSQL_DRIVER })
    void eitherDriversProductNameSelectsTheMySqlDialect(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db); Connection connection = database.pool(1).getConnection()) {
            String product = connection.getMetaData().getDatabaseProductName();
            assertThat(product).isEqualTo(TestDatabase.MARIADB.equals(db) ? "MariaDB" : "MySQL");
            assertThat(RowDialect.of(product)).isInstanceOf(MySqlDialect.class);
        }
    }

    /** The permits' races run in {@code READ COMMITTED} too (JdbcPermitsTests): its pools are really set so. */
    @Test
    void theReadCommittedDatabasesTransactionsAreReadCommitted() throws Exception {
        try (TestDatabase database = TestDatabase.of(TestDatabase.MARIADB_READ_COMMITTED);
                Connection connection = database.pool(1).getConnection();
                Statement statement = connection.createStatement();
                ResultSet isolation = statement.executeQuery("SELECT @@tx_isolation")) {
            assertThat(isolation.next()).isTrue();
            assertThat(isolation.getString(1)).isEqualTo("READ-COMMITTED");
        }
    }

    /**
     * The store's sessions wait 1 s for a row lock here (the server's default is 50 s, longer than any command
     * timeout), while another transaction holds the row.
     */
    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.MARIADB, TestDatabase.MARIADB_MYSQL_DRIVER })
    void aLockWaitTimeoutAnswersBusyAndLeavesTheRowAsItWas(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(database.url());
            config.setMaximumPoolSize(2);
            config.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1");
            try (HikariDataSource pool = new HikariDataSource(config);
                    JdbcLockStore store = new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                            .withCommandTimeout(Duration.ofSeconds(10)))) {
                store.start(StoreEvents.NONE);
                LockRequest first = request("waited", "first", 60_000);
                long token = ((Attempt.Granted) answer(store.attempt(first, Waiting.LAST_TRY))).fencingToken();
                assertThat(answer(store.release(lease(first, token)))).isEqualTo(ReleaseResult.RELEASED);
                try (Connection other = database.pool(1).getConnection(); Statement statement = other
                        .createStatement()) {
                    other.setAutoCommit(false);
                    statement.executeQuery("SELECT owner_token FROM " + TABLE + " WHERE lock_name = 'waited'"
                            + " FOR UPDATE").close();
                    // The row is free, but another transaction holds its row lock for longer than the wait.
                    assertThat(answer(store.attempt(request("waited", "second", 60_000), Waiting.LAST_TRY)))
                            .isInstanceOf(Attempt.Busy.class);
                    assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?",
                            "waited")).as("nothing half granted").isNull();
                    other.rollback();
                }
                assertThat(answer(store.attempt(request("waited", "third", 60_000), Waiting.LAST_TRY)))
                        .isInstanceOfSatisfying(Attempt.Granted.class,
                                granted -> assertThat(granted.fencingToken()).isGreaterThan(token));
            }
        }
    }

    /**
     * A grant of a permit locks the name row, then writes a slot row. Another transaction holds that slot row and,
     * once the store waits for it, asks for the name row: a deadlock, in which InnoDB rolls back the transaction
     * that changed less, here the store's (the other one has written ballast rows first).
     */
    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.MARIADB, TestDatabase.MARIADB_MYSQL_DRIVER })
    void aDeadlockVictimAnswersBusyAndNothingIsHalfGranted(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            try (HikariDataSource pool = database.pool(2);
                    JdbcLockStore store = new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                            .withCommandTimeout(Duration.ofSeconds(10)))) {
                store.start(StoreEvents.NONE);
                LockRequest first = permit("dead", "first");
                long token = ((Attempt.Granted) answer(store.attempt(first, Waiting.LAST_TRY))).fencingToken();
                assertThat(answer(store.release(lease(first, token)))).isEqualTo(ReleaseResult.RELEASED);
                String slot = PermitRows.slots("dead", 2)[0]; // free now: the next grant takes it
                try (Connection other = database.pool(1).getConnection()) {
                    other.setAutoCommit(false);
                    try (Statement ballast = other.createStatement()) {
                        for (int i = 0; i < 20; i++) {
                            ballast.executeUpdate("INSERT INTO " + TABLE + " (lock_name, fencing_token,"
                                    + " lease_until) VALUES ('ballast-" + i + "', 0, UTC_TIMESTAMP(6))");
                        }
                    }
                    lockRow(other, slot);
                    CompletionStage<Attempt> second = store.attempt(permit("dead", "second"), Waiting.LAST_TRY);
                    await("the store's transaction waits for the slot row").atMost(Duration.ofSeconds(10))
                            .until(() -> waitingTransactions(database) == 1);
                    lockRow(other, "dead"); // the deadlock: InnoDB rolls the store's transaction back
                    assertThat(answer(second)).isInstanceOf(Attempt.Busy.class);
                    other.rollback();
                }
                assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?", slot))
                        .as("nothing half granted").isNull();
                assertThat(answer(store.attempt(permit("dead", "third"), Waiting.LAST_TRY)))
                        .isInstanceOfSatisfying(Attempt.Granted.class,
                                granted -> assertThat(granted.fencingToken()).isGreaterThan(token));
            }
        }
    }

    private static LockRequest permit(String name, String owner) {
        return new LockRequest(name, LockType.REENTRANT, owner, Duration.ofSeconds(1), Duration.ofMinutes(1), true,
                2);
    }

    private static void lockRow(Connection connection, String name) throws Exception {
        try (PreparedStatement lock = connection.prepareStatement("SELECT owner_token FROM " + TABLE
                + " WHERE lock_name = ? FOR UPDATE")) {
            lock.setString(1, name);
            try (ResultSet row = lock.executeQuery()) {
                assertThat(row.next()).as("row %s exists", name).isTrue();
            }
        }
    }

    private static long waitingTransactions(TestDatabase database) throws Exception {
        Object count = database.queryValue("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = ?",
                "LOCK WAIT");
        return ((Number) count).longValue();
    }
}
