package dev.distlock.sample;

import java.util.UUID;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's promise, end to end: two application instances (separate contexts with their own web servers,
 * lock services and connection pools) share one real Redis and one database; 500 buyers hit them concurrently for
 * a product with stock 100. With distlock exactly 100 are sold; without it the same sale may oversell.
 */
class FlashSaleIntegrationTests {

    private static final Logger log = LoggerFactory.getLogger(FlashSaleIntegrationTests.class);

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    @Test
    void withTheLockTwoInstancesSellExactlyTheStock() throws Exception {
        runSale(true).assertExactlyTheStockSold();
    }

    @Test
    void withoutTheLockTheSameSaleMayOversell() throws Exception {
        FlashSale.Result result = runSale(false);
        log.info("Without the lock: sold {}, remaining {}, oversold {} ({})", result.sold(), result.remaining(),
                result.oversold(), result.statuses());
        // Only reported: overselling depends on timing. Lost updates can only leave too much stock, never too little.
        assertThat(result.statuses().values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(FlashSale.BUYERS);
        assertThat(result.oversold()).isNotNegative();
    }

    private FlashSale.Result runSale(boolean locked) throws Exception {
        RedisServerProcess server = redis.start();
        String database = "jdbc:h2:mem:flash-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        try (FlashSale sale = FlashSale.onTwoInstances("--sample.embedded-redis=false",
                "--spring.data.redis.host=" + server.host(), "--spring.data.redis.port=" + server.port(),
                "--spring.datasource.url=" + database, "--distlock.enabled=" + locked)) {
            return sale.run();
        }
    }
}
