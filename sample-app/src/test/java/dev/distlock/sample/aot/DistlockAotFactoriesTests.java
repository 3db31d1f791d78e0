package dev.distlock.sample.aot;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code RuntimeHintsRegistrar} that the published modules list in {@code META-INF/spring/aot.factories},
 * loaded as Spring's AOT processing loads them. The sample is the one application with every module on its class
 * path (core, Redis, JDBC, ZooKeeper, auto-configuration): a misspelled entry fails to load here, a missing one
 * is missing from the list, and each registrar is applied once.
 */
class DistlockAotFactoriesTests {

    private static final List<String> REGISTRARS = List.of("dev.distlock.annotation.DistributedLockRuntimeHints",
            "dev.distlock.redis.RedisLockStoreRuntimeHints", "dev.distlock.jdbc.JdbcLockStoreRuntimeHints",
            "dev.distlock.zookeeper.ZooKeeperLockStoreRuntimeHints",
            "dev.distlock.autoconfigure.DistlockAutoConfigurationRuntimeHints");

    @Test
    void everyModuleRegistersItsHints() {
        ClassLoader classLoader = getClass().getClassLoader();
        // Throws, naming the class, when an entry does not load.
        List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
                .forResourceLocation("META-INF/spring/aot.factories", classLoader).load(RuntimeHintsRegistrar.class);
        List<String> distlock = registrars.stream().map(registrar -> registrar.getClass().getName())
                .filter(name -> name.startsWith("dev.distlock.")).toList();
        assertThat(distlock).containsExactlyInAnyOrderElementsOf(REGISTRARS);

        RuntimeHints hints = new RuntimeHints();
        registrars.forEach(registrar -> registrar.registerHints(hints, classLoader));
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/release.lua")).accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/jdbc/schema-postgresql.sql"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(
                TypeReference.of("org.apache.zookeeper.ClientCnxnSocketNIO")))
                .accepts(hints);
    }
}
