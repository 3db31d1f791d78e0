package dev.distlock.zookeeper.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.StoreLockService;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.AnotherStore;
import dev.distlock.zookeeper.ZooKeeperLockStore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ZooKeeper store's auto-configuration against a real ZooKeeper server (Curator's test server).
 */
class DistlockZooKeeperAutoConfigurationTests {

    static TestingServer server;

    @TempDir
    static Path anotherStoreModule;

    /** A ZooKeeper application: this module's class path, Curator and no other store. */
    private final ApplicationContextRunner zooKeeperOnly = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(AnotherStore.Config.class, DistlockZooKeeperAutoConfiguration.class,
                    DistlockAutoConfiguration.class));

    /** With a second store on the class path ({@link AnotherStore}). */
    private final ApplicationContextRunner runner = zooKeeperOnly.withClassLoader(
            AnotherStore.classLoader(anotherStoreModule));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        server.close();
    }

    @Test
    void curatorOnTheClassPathIsEnoughAndTheStoresOwnClientIsClosedWithTheContext() throws Exception {
        CuratorFramework[] client = new CuratorFramework[1];
        zooKeeperOnly.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
                "distlock.zookeeper.base-path=/auto", "distlock.zookeeper.session-timeout=5s").run(context -> {
                    assertThat(context).hasSingleBean(StoreLockService.class).hasSingleBean(ZooKeeperLockStore.class);
                    ZooKeeperLockStore store = context.getBean(ZooKeeperLockStore.class);
                    client[0] = store.client();
                    assertThat(client[0].getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(2000);
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:7")) {
                        assertThat(client[0].getChildren().forPath("/auto/orders:7")).hasSize(1);
                    }
                    assertThat(context.getBean(StoreLockService.class).storeHealth(Duration.ofSeconds(2)).up()).isTrue();
                });
        assertThat(client[0].getState()).isEqualTo(CuratorFrameworkState.STOPPED);
    }

    @Test
    void theApplicationsOwnCuratorClientIsUsed() {
        CuratorFramework own = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        own.start();
        try {
            zooKeeperOnly.withBean(CuratorFramework.class, () -> own, definition -> definition.setDestroyMethodName(""))
                    .run(context -> {
                        assertThat(context.getBean(ZooKeeperLockStore.class).client()).isSameAs(own);
                        context.getBean(LockService.class).lock("own").unlock();
                        assertThat(own.checkExists().forPath("/distlock")).isNotNull();
                    });
            assertThat(own.getState()).as("the application's client is the application's to close")
                    .isEqualTo(CuratorFrameworkState.STARTED);
        }
        finally {
            own.close();
        }
    }

    @Test
    void distlockStoreChoosesZooKeeperWhenAnotherStoreIsOnTheClassPathToo() {
        runner.withPropertyValues("distlock.store=zookeeper",
                "distlock.zookeeper.connect-string=" + server.getConnectString()).run(context -> {
                    assertThat(context).hasSingleBean(ZooKeeperLockStore.class).doesNotHaveBean(InMemoryLockStore.class);
                    assertThat(context.getBean(LockStore.class)).isInstanceOf(ZooKeeperLockStore.class);
                });
        runner.run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                .hasMessageContaining("distlock.store").hasMessageContaining("zookeeper"));
    }

    @Test
    void anInvalidBasePathFailsStartUpNamingTheProperty() {
        zooKeeperOnly.withPropertyValues("distlock.zookeeper.base-path=locks").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.zookeeper.base-path"));
    }

    @Test
    void anUnreachableEnsembleFailsClosedWithinTheCommandTimeout() {
        zooKeeperOnly.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:1",
                "distlock.command-timeout=500ms").run(context -> {
                    LockService locks = context.getBean(LockService.class);
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> locks.lock("nowhere")).isInstanceOf(LockUnavailableException.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
                    assertThat(context.getBean(StoreLockService.class).storeHealth(Duration.ofMillis(200)).up())
                            .isFalse();
                });
    }
}
