package dev.distlock.sample;

import java.nio.file.Path;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.jdbc.JdbcLockStore;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on the JDBC store ({@code distlock.store=jdbc}): two application instances share the sample's H2 file
 * database for the stock and for the locks, no Redis anywhere (none is started, though the embedded Redis is left
 * on), and 500 concurrent buyers of a product with stock 100 buy exactly 100.
 */
class FlashSaleJdbcIntegrationTests {

    private static final Logger log = LoggerFactory.getLogger(FlashSaleJdbcIntegrationTests.class);

    @Test
    void twoInstancesLockingInTheirDatabaseSellExactlyTheStock(@TempDir Path data) throws Exception {
        int redisPort = LoopbackPorts.free();
        try (FlashSale sale = FlashSale.onTwoInstances("--distlock.store=jdbc", "--sample.data-dir=" + data,
                "--spring.data.redis.port=" + redisPort)) {
            assertThat(LoopbackPorts.isListening(redisPort)).as("no Redis started for the JDBC store").isFalse();
            assertThat(sale.instances()).allSatisfy(instance -> assertThat(instance.getBean(LockStore.class))
                    .isInstanceOf(JdbcLockStore.class));
            FlashSale.Result result = sale.run();
            log.info("JDBC store: sold {}, remaining {}, oversold {}, {} req/s ({})", result.sold(),
                    result.remaining(), result.oversold(), Math.round(FlashSale.BUYERS / result.seconds()),
                    result.statuses());
            result.assertExactlyTheStockSold();
            Long lockRows = sale.instances().get(0).getBean(JdbcTemplate.class).queryForObject(
                    "SELECT COUNT(*) FROM distlock_lock WHERE lock_name = 'stock:1' AND owner_token IS NULL", Long.class);
            assertThat(lockRows).as("the lock lived in the database and was released").isOne();
        }
    }
}
