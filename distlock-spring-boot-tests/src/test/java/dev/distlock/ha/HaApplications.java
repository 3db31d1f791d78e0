package dev.distlock.ha;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockMetricsAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.embedded.RedisSentinelTopology;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.LockHistory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The application nodes of the HA tests: Boot's Redis auto-configuration and distlock's, with meters (for
 * {@code distlock.lease.lost}) and every grant recorded in a {@link LockHistory}. Each test class adds where Redis
 * is and its own {@code distlock.*} settings.
 */
final class HaApplications {

    private HaApplications() {
    }

    /**
     * @param history where every node records its grants
     * @return a runner for one node
     */
    static ApplicationContextRunner node(LockHistory history) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                        DistlockMetricsAutoConfiguration.class, DistlockRedisAutoConfiguration.class,
                        DistlockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.timeout=5s", "distlock.command-timeout=1s")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean("history", LockListener.class, history::listener);
    }

    /**
     * @param history where every node records its grants
     * @param topology the Sentinel topology, the only Redis setting the node gets
     * @return a runner for one node configured through {@code spring.data.redis.sentinel.*}
     */
    static ApplicationContextRunner sentinelNode(LockHistory history, RedisSentinelTopology topology) {
        return node(history).withPropertyValues("spring.data.redis.sentinel.master=" + topology.masterName(),
                "spring.data.redis.sentinel.nodes=" + topology.sentinelNodes());
    }
}
