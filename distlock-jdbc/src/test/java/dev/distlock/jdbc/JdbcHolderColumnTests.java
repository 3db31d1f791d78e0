package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.LockInfo;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code holder} column: the schema script adds it to a table an earlier version made (every grant writes it),
 * and a lock's row and a permit's slot row keep the holder's {@code distlock.instance-id}, which describe reads.
 */
class JdbcHolderColumnTests {

    private static final String TABLE = "holder_lock";

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL })
    void aTableOfAnEarlierVersionGetsTheColumnAndLocksAndPermitsKeepTheHolder(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.update("DROP TABLE IF EXISTS " + TABLE);
            database.update("CREATE TABLE " + TABLE + " (lock_name VARCHAR(255) NOT NULL PRIMARY KEY, owner_token "
                    + "VARCHAR(64), fencing_token BIGINT NOT NULL, lease_until TIMESTAMP WITH TIME ZONE NOT NULL)");
            database.createTableKeeping(TABLE);
            JdbcLockStore store = new JdbcLockStore(database.pool(2), JdbcLockConfig.defaults().withTableName(TABLE));
            try (StoreLockService service = new StoreLockService(store, LockConfig.defaults()
                    .withInstanceId("billing@host-7:42"), CompositeLockListener.of(List.of()))) {
                service.start();
                try (LockHandle held = service.lock("invoice:1")) {
                    assertThat(database.queryValue("SELECT holder FROM " + TABLE + " WHERE lock_name = ?",
                            "invoice:1")).isEqualTo("billing@host-7:42");
                    LockInfo info = service.describe("invoice:1").orElseThrow();
                    assertThat(info.holder()).isEqualTo("billing@host-7:42");
                    assertThat(info.fencingToken()).isEqualTo(held.fencingToken());
                    assertThat(info.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
                    assertThat(info.waiters()).as("JDBC keeps no line").isNull();
                }
                assertThat(service.describe("invoice:1")).as("free").isEmpty();
                try (LockHandle permit = service.lock("printers", LockOptions.defaults().withPermits(2))) {
                    LockInfo info = service.describe("printers").orElseThrow(); // from the permit's slot row
                    assertThat(info.holder()).isEqualTo("billing@host-7:42");
                    assertThat(info.fencingToken()).isEqualTo(permit.fencingToken());
                }
                assertThat(service.describe("printers")).as("free").isEmpty();
            }
        }
    }
}
