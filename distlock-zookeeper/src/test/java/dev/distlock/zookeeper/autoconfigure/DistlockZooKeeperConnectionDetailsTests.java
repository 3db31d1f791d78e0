package dev.distlock.zookeeper.autoconfigure;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.zookeeper.ZooKeeperLockStore;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ZooKeeperConnectionDetails}: the ZooKeeper store's own client connects where that bean says, so an
 * application's (or a test's service connection) takes the place of {@code distlock.zookeeper.connect-string}.
 * Against a real ZooKeeper server (Curator's test server).
 */
class DistlockZooKeeperConnectionDetailsTests {

    static TestingServer server;

    /** A ZooKeeper application: this module's class path, Curator and no other store. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockZooKeeperAutoConfiguration.class,
                    DistlockAutoConfiguration.class));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        server.close();
    }

    @Test
    void theApplicationsConnectionDetailsWinOverTheProperty() {
        ZooKeeperConnectionDetails details = () -> server.getConnectString();
        // The property names a port nothing listens on: locking works only if the store follows the bean.
        runner.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:1",
                "distlock.zookeeper.base-path=/details")
                .withBean(ZooKeeperConnectionDetails.class, () -> details).run(context -> {
                    assertThat(context).getBean(ZooKeeperConnectionDetails.class).isSameAs(details);
                    assertThat(context).doesNotHaveBean(PropertiesZooKeeperConnectionDetails.class);
                    ZooKeeperLockStore store = context.getBean(ZooKeeperLockStore.class);
                    assertThat(store.client().getZookeeperClient().getCurrentConnectionString())
                            .isEqualTo(server.getConnectString());
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:7")) {
                        assertThat(store.client().getChildren().forPath("/details/orders:7")).hasSize(1);
                    }
                });
    }

    @Test
    void byDefaultTheDetailsComeFromTheConnectStringProperty() {
        runner.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString()).run(context -> {
            assertThat(context).getBean(ZooKeeperConnectionDetails.class)
                    .isInstanceOf(PropertiesZooKeeperConnectionDetails.class)
                    .extracting(ZooKeeperConnectionDetails::getConnectString).isEqualTo(server.getConnectString());
            context.getBean(LockService.class).lock("orders:8").unlock();
            assertThat(context.getBean(ZooKeeperLockStore.class).client().checkExists().forPath("/distlock"))
                    .isNotNull();
        });
    }
}
