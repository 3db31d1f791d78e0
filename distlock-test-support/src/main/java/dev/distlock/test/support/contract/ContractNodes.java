package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreEvents;
import dev.distlock.test.support.CountingLockStore;
import dev.distlock.test.support.LockHistory;
import dev.distlock.test.support.StoreFixture;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.Parameter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every contract class stands on: the fixture of the current invocation ({@link StoreContract}) and its nodes.
 * Nodes are {@link StoreLockService}s, each on a store of its own (its own connections), standing for separate
 * application instances; every store is wrapped in a {@link CountingLockStore} so that round trips can be counted.
 * The fixture's servers are shared by the run's contract classes, so each test uses lock names of its own.
 */
abstract class ContractNodes {

    /** A try that does not wait: answers at once whether the lock is free. */
    static final LockOptions NO_WAIT = LockOptions.defaults().withWaitTime(Duration.ZERO);

    /** How long {@link #takeFreedLock} waits: far below the default lease of 30 s. */
    static final Duration FREED_LOCK_WAIT = Duration.ofSeconds(5);

    /** The history of the current test; nodes report lease losses to it. */
    final LockHistory history = new LockHistory();

    @Parameter
    @Nullable ContractStore contractStore;

    private @Nullable StoreFixture fixture;

    private final List<StoreLockService> nodes = new ArrayList<>();

    private final List<CountingLockStore> stores = new ArrayList<>();

    /** What the nodes' stores need closed after them (a pool the store does not own). */
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeEach
    void startFixture() {
        fixture = Objects.requireNonNull(contractStore, "no fixture injected").fixture();
    }

    /** @return the fixture of this invocation */
    StoreFixture fixture() {
        return Objects.requireNonNull(fixture, "the fixture starts before each test");
    }

    @AfterEach
    void closeNodes() throws Exception {
        nodes.forEach(StoreLockService::close);
        nodes.clear();
        stores.clear();
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        resources.clear();
    }

    /** @return a new store node with connections of its own, not started */
    LockStore newStore() {
        return fixture().newStore(resources);
    }

    /** Makes the store unreachable for every node (stops the server). */
    void stopStore() {
        fixture().stopServer();
    }

    /** Makes it reachable again after {@link #stopStore()}. */
    void startStore() {
        fixture().startServer();
    }

    /**
     * Makes the store forget the holders of a lock behind their backs, as data loss or an operator would.
     *
     * @param name the lock name
     */
    void breakLease(String name) {
        fixture().breakLease(name);
    }

    /** @return whether the store shares {@link LockType#READ} locks between readers (else READ is exclusive) */
    boolean sharesReadLocks() {
        return fixture().sharesReadLocks();
    }

    /** @return the default settings with a watchdog lease of 1.5 s: several renewals within a test's seconds */
    LockConfig shortLease() {
        return config().withLeaseTime(Duration.ofMillis(1500));
    }

    /** @return the default settings of test nodes: a 5 s wait, a 30 s watchdog lease */
    LockConfig config() {
        return LockConfig.defaults().withWaitTime(Duration.ofSeconds(5));
    }

    /** @return a started node with the default test settings */
    StoreLockService node() {
        return node(config());
    }

    /**
     * @param config the node's settings
     * @return a started node
     */
    StoreLockService node(LockConfig config) {
        CountingLockStore store = new CountingLockStore(newStore());
        StoreLockService node = new StoreLockService(store, config, CompositeLockListener.of(List.of(
                history.listener())));
        node.start();
        nodes.add(node);
        stores.add(store);
        return node;
    }

    /** @return a started store, asked directly (not through the engine); the caller closes it */
    LockStore startedStore() {
        LockStore store = newStore();
        store.start(StoreEvents.NONE);
        return store;
    }

    /**
     * @param node a node made by {@link #node()}
     * @return the counting store of that node
     */
    CountingLockStore storeOf(StoreLockService node) {
        return stores.get(nodes.indexOf(node));
    }

    /**
     * Takes a lock that was just released, allowing a moment far below the lease: a quorum store answers a release
     * once a majority of its nodes released, and the last node's release, or the undo of a refused attempt that one
     * node granted late, may land a moment later; the next holder then tries again after a short delay. A release
     * that left the lock held still fails here, since the lease (30 s) outlasts the wait.
     *
     * @param node the node that takes the lock
     * @param name the lock released just before
     * @return the lock, held
     */
    LockHandle takeFreedLock(StoreLockService node, String name) {
        Optional<LockHandle> taken = node.tryLock(name, LockOptions.defaults().withWaitTime(FREED_LOCK_WAIT));
        assertThat(taken).as("lock '%s' free after its release (within %s)", name, FREED_LOCK_WAIT).isPresent();
        return taken.get();
    }
}
