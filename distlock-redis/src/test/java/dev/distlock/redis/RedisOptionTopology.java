package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import org.jspecify.annotations.Nullable;
import org.opentest4j.TestAbortedException;

/**
 * A Redis campaign topology whose nodes' stores have one opt-in setting on: the same servers, links, faults and
 * guarantee as the topology it wraps, so that the setting is tried under every fault the plain one suffers. Its name
 * is the wrapped one's with the option's suffix ({@code cluster-sharded}); its specs carry the option as a prefix
 * ({@code sharded+cluster|…}), which {@link RedisCampaignTopologies#open} takes off to open the wrapped spec with the
 * setting.
 */
final class RedisOptionTopology implements CampaignTopology {

    /** The settings tried this way. */
    enum Option {

        /** {@code distlock.cluster.sharded-pubsub}: Redis Cluster 7+. */
        SHARDED("sharded", RedisLockConfig::withShardedPubsub),

        /** {@code distlock.redis.batched-scripts}: standalone and Sentinel. */
        BATCHED("batched", RedisLockConfig::withBatchedScripts);

        final String suffix;

        final UnaryOperator<RedisLockConfig> setting;

        Option(String suffix, UnaryOperator<RedisLockConfig> setting) {
            this.suffix = suffix;
            this.setting = setting;
        }

        String prefix() {
            return suffix + "+";
        }
    }

    private final CampaignTopology wrapped;

    private final Option option;

    private RedisOptionTopology(CampaignTopology wrapped, Option option) {
        this.wrapped = wrapped;
        this.option = option;
    }

    /** @return a new Cluster whose nodes use sharded pub/sub, started only on Redis 7 or later */
    static RedisOptionTopology clusterSharded() {
        if (!RedisServerBinary.isAtLeast(7, 0)) {
            // The campaign reports the topology as skipped, with this reason.
            throw new TestAbortedException("campaign on cluster-sharded SKIPPED: sharded pub/sub needs Redis 7 or "
                    + "later; this run's redis-server is " + RedisServerBinary.version()
                    + " (DISTLOCK_REDIS_VERSION=7.4 or DISTLOCK_REDIS_SERVER=<a Redis 7 binary> runs it)");
        }
        return new RedisOptionTopology(new ClusterTopology(), Option.SHARDED);
    }

    /** @return the topology, started, its nodes sending their lock scripts in batches */
    static RedisOptionTopology batched(CampaignTopology wrapped) {
        return new RedisOptionTopology(wrapped, Option.BATCHED);
    }

    @Override
    public String name() {
        return wrapped.name() + "-" + option.suffix;
    }

    @Override
    public String spec(String node) {
        return option.prefix() + wrapped.spec(node);
    }

    @Override
    public @Nullable Links links() {
        return wrapped.links();
    }

    @Override
    public List<FaultKind> serverFaults() {
        return wrapped.serverFaults();
    }

    @Override
    public @Nullable Injected inject(FaultKind kind, Random random, Duration duration) {
        return wrapped.inject(kind, random, duration);
    }

    @Override
    public @Nullable Injected inject(FaultKind kind, Random random, Duration duration, @Nullable String busyNode) {
        return wrapped.inject(kind, random, duration, busyNode);
    }

    @Override
    public void heal() {
        wrapped.heal();
    }

    @Override
    public long leaseMillis() {
        return wrapped.leaseMillis();
    }

    @Override
    public long fixedLeaseMillis() {
        return wrapped.fixedLeaseMillis();
    }

    @Override
    public String guarantee() {
        return wrapped.guarantee();
    }

    @Override
    public void close() {
        wrapped.close();
    }
}
