package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import dev.distlock.test.support.StoreFixtures;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.StoreFixture;

/**
 * Starts the stores of workload S. Every store but the reference is started by its own fixture
 * ({@link StoreFixture}, in the store's test-jar, found through {@link StoreFixtures}), with the library's default
 * store settings: no store is named here. The reference, {@code redis}, is the harness's own redis-server (or
 * {@code --redis}), the same one the other workloads measure. Ids are those of {@code --stores}.
 */
final class Stores {

    /** The id of the reference store of workload S's ratios: the harness's Redis. */
    static final String REFERENCE = "redis";

    /** The label of the reference store of workload S's ratios. */
    static final String REDIS = "Redis standalone";

    private static final String PREFIX = "bench";

    private Stores() {
    }

    /**
     * @return every store id, in report order: the reference, the other set-ups of its store (replicas, Redlock),
     *         then every other fixture on the class path, in {@link StoreFixtures}' order
     */
    static List<String> all() {
        List<String> ids = new ArrayList<>(List.of(REFERENCE));
        StoreFixtures.providers().stream().filter(provider -> provider.ids().contains(REFERENCE)).findFirst()
                .ifPresent(provider -> provider.ids().stream().filter(id -> !ids.contains(id)).forEach(ids::add));
        StoreFixtures.ids().stream().filter(id -> !ids.contains(id)).forEach(ids::add);
        return ids;
    }

    /**
     * Starts a store.
     *
     * @param id its id
     * @param redis the harness's Redis server, the standalone store
     * @param skipped told, for the report, why a store this machine cannot run is left out
     * @return the started store, or empty when this machine cannot run it (the reason is printed and given to
     *         {@code skipped})
     */
    static Optional<StoreUnderTest> start(String id, RedisTarget redis, Consumer<String> skipped) throws Exception {
        if (REFERENCE.equals(id)) {
            return Optional.of(redisStandalone(redis));
        }
        StoreFixture.Availability availability = StoreFixtures.start(id);
        if (availability instanceof StoreFixture.Availability.Unavailable unavailable) {
            System.err.println("  " + unavailable.label() + " SKIPPED: " + unavailable.reason());
            skipped.accept(unavailable.label() + ": " + unavailable.reason());
            return Optional.empty();
        }
        StoreFixture fixture = ((StoreFixture.Availability.Ready) availability).fixture();
        return Optional.of(new StoreUnderTest(fixture.id(), fixture.label(), fixture.setup(), fixture::newStore,
                List.of(fixture), Optional.of(fixture)));
    }

    private static StoreUnderTest redisStandalone(RedisTarget redis) {
        return new StoreUnderTest(REFERENCE, REDIS,
                "the harness's redis-server (or `--redis`), no replica, no persistence",
                resources -> redisNode(redis.host(), redis.port(), RedisLockConfig.defaults().withKeyPrefix(PREFIX),
                        resources),
                List.of(), Optional.empty());
    }

    private static LockStore redisNode(String host, int port, RedisLockConfig config, List<AutoCloseable> resources) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        factory.afterPropertiesSet();
        factory.start();
        resources.add(factory::destroy); // the store does not close the application's connection factory
        return new RedisLockStore(factory, config);
    }
}
