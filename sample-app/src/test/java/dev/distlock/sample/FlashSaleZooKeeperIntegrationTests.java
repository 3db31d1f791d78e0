package dev.distlock.sample;

import java.nio.file.Path;
import java.util.UUID;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.spi.LockStore;
import dev.distlock.zookeeper.ZooKeeperLockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's promise on ZooKeeper, end to end: two application instances started with
 * {@code --distlock.store=zookeeper} — the first starts the in-process ZooKeeper on the configured port, the second
 * joins it — share one database; 500 buyers hit them concurrently for a product with stock 100, and exactly 100 are
 * sold.
 */
class FlashSaleZooKeeperIntegrationTests {

    @TempDir
    Path dataDir;

    @Test
    void withTheLockOnZooKeeperTwoInstancesSellExactlyTheStock() throws Exception {
        int zooKeeperPort = LoopbackPorts.free();
        String database = "jdbc:h2:mem:flash-zk-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        try (FlashSale sale = FlashSale.onTwoInstances("--distlock.store=zookeeper",
                "--distlock.zookeeper.connect-string=127.0.0.1:" + zooKeeperPort, "--sample.data-dir=" + dataDir,
                "--spring.datasource.url=" + database)) {
            assertThat(sale.instances()).allSatisfy(instance -> assertThat(instance.getBean(LockStore.class))
                    .isInstanceOf(ZooKeeperLockStore.class));
            assertThat(sale.get(1, "/actuator/health").statusCode()).as("healthy without any Redis").isEqualTo(200);
            sale.run().assertExactlyTheStockSold();
        }
        assertThat(LoopbackPorts.isListening(zooKeeperPort)).as("the embedded ZooKeeper stopped with its instance")
                .isFalse();
    }
}
