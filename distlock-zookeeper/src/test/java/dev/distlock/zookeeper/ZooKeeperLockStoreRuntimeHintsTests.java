package dev.distlock.zookeeper;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the ZooKeeper store, as AOT processing collects them from
 * {@code META-INF/spring/aot.factories} (so a missing or misspelled entry fails here too).
 */
class ZooKeeperLockStoreRuntimeHintsTests {

    private final RuntimeHints hints = hintsFromAotFactories();

    @Test
    void theClientSocketIsConstructibleAsTheZooKeeperClientDoes() throws Exception {
        // ZooKeeper's getClientCnxnSocket(): Class.forName(name).getDeclaredConstructor(ZKClientConfig.class).
        Class<?> socket = Class.forName(ZooKeeperLockStoreRuntimeHints.CLIENT_SOCKET);
        assertThat(RuntimeHintsPredicates.reflection()
                .onConstructorInvocation(socket.getDeclaredConstructor(ZKClientConfig.class))).accepts(hints);
    }

    @Test
    void curatorFindsPersistentWatches() {
        assertThat(RuntimeHintsPredicates.reflection().onType(AddWatchMode.class)).accepts(hints);
    }

    private static RuntimeHints hintsFromAotFactories() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader classLoader = ZooKeeperLockStoreRuntimeHintsTests.class.getClassLoader();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", classLoader)
                .load(RuntimeHintsRegistrar.class).forEach(registrar -> registrar.registerHints(hints, classLoader));
        return hints;
    }
}
