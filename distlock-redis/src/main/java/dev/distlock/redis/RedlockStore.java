package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.quorum.QuorumConfig;
import dev.distlock.quorum.QuorumLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreEvents;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redlock: a lock is held when more than half of N independent Redis masters granted it. This is the generic
 * {@link QuorumLockStore} (voting within the lease's validity, the ordered undo, fail-closed votes, renewals by
 * majority) over one {@link RedisLockStore} per master, through the store SPI alone. What is Redis-specific is only
 * here: the masters are given as {@code distlock.redlock.nodes} URIs, each gets a connection factory of its own, and
 * every master is connected at start-up so that the first acquire does not pay for N connections. The fencing token
 * is the highest token of the granting masters; each master issues tokens that follow its clock, above a released
 * lock's token, which it keeps for a second ({@link RedisLockConfig#redlockMaster()}): the next
 * majority may lack the master whose clock is ahead.
 */
public class RedlockStore extends QuorumLockStore {

    private final RedlockConfig config;

    private final List<LettuceConnectionFactory> ownFactories;

    /**
     * @param config the settings
     * @param nodes one store per master, in the order of {@code config.nodes()}, each configured as a Redlock master
     *        ({@link RedisLockConfig#asRedlockMaster()})
     * @throws IllegalArgumentException when there is not one store per master, or one is not configured so
     */
    public RedlockStore(RedlockConfig config, List<RedisLockStore> nodes) {
        this(config, nodes, List.of());
    }

    private RedlockStore(RedlockConfig config, List<RedisLockStore> nodes, List<LettuceConnectionFactory> factories) {
        super(new QuorumConfig(List.<LockStore>copyOf(requireOnePerNode(config, nodes)), config.commandTimeout()));
        this.config = config;
        this.ownFactories = List.copyOf(factories);
    }

    private static List<RedisLockStore> requireOnePerNode(RedlockConfig config, List<RedisLockStore> nodes) {
        if (nodes.size() != config.nodes().size()) {
            throw new IllegalArgumentException("One store per Redlock node: " + config.nodes().size() + " nodes, "
                    + nodes.size() + " stores");
        }
        // Without them the next majority, lacking the master whose clock is ahead, could issue a lower token.
        if (!nodes.stream().allMatch(node -> node.config().redlockMaster())) {
            throw new IllegalArgumentException("Every Redlock node's store must be configured as a Redlock master "
                    + "(RedisLockConfig.asRedlockMaster()), or fencing tokens follow the masters' clocks");
        }
        return nodes;
    }

    /**
     * Connects to every master of {@code config.nodes()} with a Lettuce connection factory of its own (closed with
     * the store).
     *
     * @param config the settings
     * @return the store
     */
    public static RedlockStore connect(RedlockConfig config) {
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        List<RedisLockStore> stores = new ArrayList<>();
        for (String node : config.nodes()) {
            LettuceConnectionFactory factory = RedlockNodes.connectionFactory(node, config.commandTimeout());
            factories.add(factory);
            stores.add(new RedisLockStore(factory, config.nodeConfig()));
        }
        return new RedlockStore(config, stores, factories);
    }

    /**
     * Starts the masters' stores, then connects to every master (a health check each, waited for at most the command
     * timeout), so that the first acquire does not pay for N connections.
     */
    @Override
    public void start(StoreEvents events) {
        super.start(events);
        CompletableFuture<?>[] connected = nodes().stream().map(node -> node.health().toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        // A master that is down now is a failed vote later; locking works while a majority answers.
        CompletableFuture.allOf(connected).exceptionally(error -> null)
                .completeOnTimeout(null, config.commandTimeout().toNanos(), TimeUnit.NANOSECONDS).join();
    }

    /** Closes the masters' stores, then the connection factories {@link #connect} made. */
    @Override
    public void close() {
        super.close();
        ownFactories.forEach(LettuceConnectionFactory::destroy);
    }
}
