package dev.distlock.sample;

import java.nio.file.Path;
import java.util.UUID;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.sample.etcd.EmbeddedEtcdLauncher;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The sample's promise on etcd, end to end: two application instances started with {@code --distlock.store=etcd}
 * — the first starts a local etcd process on the configured port, the second uses it — share one database; 500
 * buyers hit them concurrently for a product with stock 100, and exactly 100 are sold. Skipped, saying so, on a
 * machine without an etcd binary (Debian's {@code etcd-server}).
 */
class FlashSaleEtcdIntegrationTests {

    @TempDir
    Path dataDir;

    @BeforeAll
    static void needsEtcd() {
        boolean present = EmbeddedEtcdLauncher.binary(null).isPresent();
        if (!present) {
            LoggerFactory.getLogger(FlashSaleEtcdIntegrationTests.class).warn("No etcd binary on this machine "
                    + "(install Debian's etcd-server): the sample's etcd test is skipped");
        }
        assumeTrue(present, "No etcd binary on this machine (install Debian's etcd-server): skipped");
    }

    @Test
    void withTheLockOnEtcdTwoInstancesSellExactlyTheStock() throws Exception {
        int etcdPort = LoopbackPorts.free();
        String database = "jdbc:h2:mem:flash-etcd-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        try (FlashSale sale = FlashSale.onTwoInstances("--distlock.store=etcd",
                "--distlock.etcd.endpoints=http://127.0.0.1:" + etcdPort, "--sample.data-dir=" + dataDir,
                "--spring.datasource.url=" + database)) {
            assertThat(sale.instances()).allSatisfy(instance -> assertThat(instance.getBean(LockStore.class))
                    .isInstanceOf(EtcdLockStore.class));
            assertThat(sale.get(1, "/actuator/health").statusCode()).as("healthy without any Redis").isEqualTo(200);
            sale.run().assertExactlyTheStockSold();
        }
        assertThat(LoopbackPorts.isListening(etcdPort)).as("the local etcd stopped with its instance")
                .isFalse();
    }
}
