package dev.distlock.test.support;

import java.util.List;
import java.util.Optional;

import dev.distlock.spi.LockStore;

/**
 * One store's server(s), started for a suite: what a store module gives every suite that runs on it (the contract
 * suite, crash and fault tests, the fault campaign, workload S of the benchmarks), so that no suite names a store.
 * A store implements it once, in its test-jar, with its own test servers, and lists a {@link Provider} in its
 * test-jar's {@code META-INF/services/dev.distlock.test.support.StoreFixture$Provider}; suites find it through
 * {@link StoreFixtures} ({@link java.util.ServiceLoader}).
 *
 * <p>A fixture is started when {@link Provider#start(String)} returns it and stops everything it started on
 * {@link #close()}. The nodes' stores it makes are the callers' to close (a lock service closes its store), with
 * the resources {@link #newStore(List)} adds.
 */
public interface StoreFixture extends AutoCloseable {

    /** @return the fixture's id, as {@link Provider#ids()} lists it (for example {@code etcd-3}) */
    String id();

    /** @return a short name for reports, for example {@code etcd (3 members)} */
    String label();

    /** @return how the server(s) run here, for reports: versions, processes, durability settings */
    String setup();

    /**
     * Makes one node's store, on its own client and connections, as an application instance has it.
     *
     * @param resources where to add what the node must close after its store (a connection factory, a pool the
     *        store does not own)
     * @return the node's store, not started
     */
    LockStore newStore(List<AutoCloseable> resources);

    /** Stops the server (every member), keeping its data, so that calls fail until {@link #startServer()}. */
    void stopServer();

    /** Starts the server again after {@link #stopServer()}, with its data and on the same address. */
    void startServer();

    /**
     * Loses a name's leases behind their holders' backs (the store forgets them as a lease expiry or a server
     * crash would make it), so that the holders find out at their next renewal.
     *
     * @param name the lock name
     */
    void breakLease(String name);

    /**
     * @return whether the store counts a name's waiters ({@link dev.distlock.LockInfo#waiters()}): a store that
     *         keeps a line or waiter list does, one whose waiters poll (or a quorum of nodes nobody queues on) not
     */
    default boolean countsWaiters() {
        return false;
    }

    /**
     * @return whether the store describes a holder with exactly the fencing token of the holder's handle; a quorum
     *         tells the highest of its majority's tokens, which a node that granted after the vote may have raised
     */
    default boolean describesExactTokens() {
        return true;
    }

    /** @return whether readers of a name share it (a store that makes every reader exclusive answers false) */
    default boolean sharesReadLocks() {
        return true;
    }

    /**
     * Makes a node whose connections to the server go through a {@link FaultProxy}, so that a test cuts the node
     * off ({@link FaultProxy#drop()}, {@link FaultProxy#refuse()}) and heals it ({@link FaultProxy#pass()}) while
     * the server and the other nodes go on.
     *
     * @param resources as for {@link #newStore(List)}; the proxy is added too
     * @return the node, or empty where the store's client cannot be put behind a proxy
     */
    default Optional<CutOffNode> newCutOffNode(List<AutoCloseable> resources) {
        return Optional.empty();
    }

    /**
     * @return the store's holder main (a class with {@code main} that takes a lock and prints
     *         {@link HolderJvm#LOCKED} and the token) and the first arguments it needs to reach this fixture's
     *         server(s), for {@link HolderJvm#start(Class, String...)}; the rest of its command line is the same for
     *         every store: the lock name, the lease in milliseconds (a ZooKeeper session timeout) and optionally the
     *         permits of the name; the main holds the lock until it is killed. Empty where the store has no holder
     *         main; with one, the crash suite ({@code dev.distlock.test.support.contract.HolderCrashContractTests})
     *         runs on this fixture
     */
    default Optional<HolderCommand> holder() {
        return Optional.empty();
    }

    /**
     * @return the store's minimal lock cycle on its own client library, without distlock, on this fixture's server
     *         (the benchmarks' workload R); empty for a set-up that adds nothing to its store's (replicas, a
     *         quorum). Every store's main fixture offers one: the benchmarks' {@code StoreWorkloadsStartTests}
     *         expects it
     */
    default Optional<RawCycle> rawCycle() {
        return Optional.empty();
    }

    /** Stops every server and process the fixture started. */
    @Override
    void close();

    /**
     * A node behind a proxy.
     *
     * @param store the node's store, not started
     * @param proxy the proxy between the node and the server
     */
    record CutOffNode(LockStore store, FaultProxy proxy) {
    }

    /**
     * A holder JVM's command.
     *
     * @param main the holder main
     * @param serverArguments the arguments that reach the fixture's server(s), first on the command line
     */
    record HolderCommand(Class<?> main, List<String> serverArguments) {
    }

    /**
     * A store's fixtures, listed in its test-jar's {@code META-INF/services}: one provider per store module, with an
     * id per set-up (for example {@code etcd} and {@code etcd-3}).
     */
    interface Provider {

        /** @return the ids of the fixtures this provider starts, in report order */
        List<String> ids();

        /**
         * @return the ids the contract suite ({@code dev.distlock.test.support.contract}) runs on: by default
         *         {@link #ids()}; a provider may leave out set-ups that add nothing to the contract (a second
         *         cluster size) and add set-ups only the contract needs (another client library, a compatibility
         *         mode), which {@link #start(String)} starts too but workloads and reports do not list
         */
        default List<String> contractIds() {
            return ids();
        }

        /**
         * @return set-ups the contract suite runs on only when named in {@code -Ddistlock.contract.fixtures} (a
         *         pass of CI's): variants too slow to add to every build (another driver for the same server, a
         *         setting of the store), which {@link #start(String)} starts too
         */
        default List<String> namedContractIds() {
            return List.of();
        }

        /**
         * Starts a fixture.
         *
         * @param id one of {@link #ids()}, {@link #contractIds()} or {@link #namedContractIds()}
         * @return the started fixture, or why this machine cannot run it (a server binary missing)
         * @throws Exception when the server(s) could not be started
         */
        Availability start(String id) throws Exception;
    }

    /** What {@link Provider#start(String)} found: a started fixture, or the reason there is none here. */
    sealed interface Availability {

        /** @param fixture the started fixture */
        record Ready(StoreFixture fixture) implements Availability {
        }

        /**
         * @param label the fixture's report name
         * @param reason why this machine cannot run it, for example which binary is missing
         */
        record Unavailable(String label, String reason) implements Availability {
        }
    }
}
