package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.Test;

import static dev.distlock.jdbc.Answers.answer;
import static dev.distlock.jdbc.JdbcLockStoreTests.lease;
import static dev.distlock.jdbc.JdbcLockStoreTests.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A row lock of the lock table not granted in time on MariaDB (InnoDB's lock wait timeout, error 1205) answers busy,
 * and the row is as it was: nothing half granted. The store's sessions wait 1 s for a row lock here (the server's
 * default is 50 s, longer than any command timeout), while another transaction holds the row.
 */
class JdbcMariaDbLockWaitTests {

    private static final String TABLE = "wait_lock";

    @Test
    void aLockWaitTimeoutAnswersBusyAndLeavesTheRowAsItWas() throws Exception {
        try (TestDatabase database = TestDatabase.of(TestDatabase.MARIADB)) {
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
}
