package dev.distlock.zookeeper;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockInfo;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import dev.distlock.spi.line.LineAttempts;
import dev.distlock.spi.line.LineHolders;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The ZooKeeper {@link LockStore}, on an Apache Curator client.
 * <ul>
 * <li>A request creates one ephemeral sequential node under {@code <base-path>/<name>} (a container node that
 * ZooKeeper removes once empty), with Curator's protection against lost create replies, and lists its siblings in
 * the same round trip. It holds the lock when no conflicting node precedes it; otherwise it watches only the node it
 * waits for and keeps its node, and its place, across the retries of the request: the line of
 * {@link dev.distlock.spi.line}, which this store drives ({@link LockNodeCalls}).</li>
 * <li>Permits (a leased semaphore): a request of one of {@code n} permits makes a {@code __PERMITS_<n>__} node in
 * the same line and holds a permit while fewer than {@code n} nodes precede it, so waiters are served in arrival
 * order. A permit waiter watches the children of the lock's node rather than one node, since whichever holder leaves
 * first frees its permit: a change wakes every permit waiter of that name on the client, each of which lists the
 * line again — a cost in proportion to the waiters, acceptable for the small pools permits are for. A request whose
 * permits differ from an earlier node's in line (a lock counts 1) deletes its node and fails
 * ({@link LockRequest#permitsMismatch}).</li>
 * <li>The fencing token is the node's creation zxid: ZooKeeper's transaction ids grow across the whole ensemble,
 * across leader changes (new epoch) and across the re-creation of the parent node, where the sequence numbers
 * would start again from 0.</li>
 * <li>The lease is the session: nothing is renewed; a suspended connection makes {@link #isHeld} false at once, a
 * lost session loses every lease ({@link NodeRegistry}).</li>
 * <li>Every call answers asynchronously, on Curator's background API; the engine bounds the wait by
 * {@code distlock.command-timeout} and undoes an attempt that failed or answered late with {@link #cancel}, which
 * deletes the request's node.</li>
 * </ul>
 */
public class ZooKeeperLockStore implements LockStore {

    private final CuratorFramework client;

    private final boolean ownsClient;

    private final ZooKeeperLockConfig config;

    private final ZooKeeperCalls calls;

    private final NodeRegistry registry;

    private final LockNodeCalls nodes;

    private final LineAttempts<LockNode, String> line;

    private final ZooKeeperDescriptions descriptions;

    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * A store on the application's client, which the application starts and closes.
     *
     * @param client a started Curator client
     * @param config the settings (its connect string and session timeout are the client's business here)
     */
    public ZooKeeperLockStore(CuratorFramework client, ZooKeeperLockConfig config) {
        this(client, config, false);
    }

    private ZooKeeperLockStore(CuratorFramework client, ZooKeeperLockConfig config, boolean ownsClient) {
        this.client = client;
        this.config = config;
        this.ownsClient = ownsClient;
        this.calls = new ZooKeeperCalls(client);
        this.registry = new NodeRegistry(calls::currentSession);
        this.nodes = new LockNodeCalls(client, calls, registry, config.basePath());
        this.line = new LineAttempts<>(registry, nodes);
        this.descriptions = new ZooKeeperDescriptions(client, calls, nodes, config.sessionTimeout());
    }

    /**
     * A store with a client of its own, made from the settings and started; {@link #close()} closes it. Does not
     * wait for the ensemble: locking fails closed until it is reachable.
     *
     * @param config the settings
     * @return the store
     */
    public static ZooKeeperLockStore connect(ZooKeeperLockConfig config) {
        CuratorFramework client = newClient(config);
        client.start();
        return new ZooKeeperLockStore(client, config, true);
    }

    /**
     * @param config the settings
     * @return a new, not started Curator client for the configured ensemble and session timeout
     */
    public static CuratorFramework newClient(ZooKeeperLockConfig config) {
        int sessionMillis = (int) config.sessionTimeout().toMillis();
        return CuratorFrameworkFactory.builder().connectString(config.connectString())
                .sessionTimeoutMs(sessionMillis)
                .connectionTimeoutMs((int) Math.min(config.commandTimeout().toMillis(), sessionMillis))
                // Retries stay short: every lock call is bounded by distlock.command-timeout anyway.
                .retryPolicy(new BoundedExponentialBackoffRetry(50, 1000, 3)).build();
    }

    /** @return the settings */
    public ZooKeeperLockConfig config() {
        return config;
    }

    /** @return the Curator client */
    public CuratorFramework client() {
        return client;
    }

    /** @return the node registry (for tests) */
    NodeRegistry registry() {
        return registry;
    }

    @Override
    public void start(StoreEvents events) {
        registry.reportTo(events);
        client.getConnectionStateListenable().addListener(registry);
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        return line.attempt(request, waiting);
    }

    /** Deletes the request's node, waiting or held. */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        return line.cancel(request);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        LockNode node = registry.held(lease);
        if (node == null || !registry.forget(node)) {
            return CompletableFuture.completedFuture(ReleaseResult.EXPIRED); // lost with its session, or deleted
        }
        return nodes.delete(node.path, "release '" + request.name() + "'")
                .thenApply(deleted -> deleted ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED);
    }

    /**
     * Deletes the holders' nodes (the first one in line, the readers at its head, or the first {@code n} nodes of
     * {@code n} permits of a name held with {@code n}: {@code LinePosition.holders}). Their instances watch their
     * held nodes and report the loss at once; the waiters behind them are woken by the deletion, and their nodes'
     * zxids, their fencing tokens, are above theirs.
     */
    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        String lockPath = LockPaths.lockPath(config.basePath(), name);
        String what = "force the release of '" + name + "'";
        return nodes.list(lockPath, what).thenCompose(children -> LineHolders.forceRelease(LockPaths.line(children),
                holder -> nodes.delete(lockPath + "/" + holder.id(), what)));
    }

    /** The holder node's data and zxid; the session timeout as the lease ({@link ZooKeeperDescriptions}). */
    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        return descriptions.describe(name, LockPaths.lockPath(config.basePath(), name));
    }

    /**
     * Session leases: a lease lasts as long as the ZooKeeper session, nothing is renewed. Counter tokens: the nodes'
     * zxids. Permits: the first {@code n} nodes of {@code n} permits hold the name; nodes are
     * created, and so granted, in the order of their zxids, which makes those the tokens in grant order.
     */
    @Override
    public StoreTraits traits() {
        return StoreTraits.of(StoreTraits.LeaseKind.SESSION, StoreTraits.TokenSource.COUNTER).withPermits();
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return LineHolders.renewals(leases, this::isHeld);
    }

    /** @return false while the session is suspended, and once the node is known gone */
    @Override
    public boolean isHeld(Lease lease) {
        return registry.held(lease) != null && !registry.suspended();
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("connectString", client.getZookeeperClient().getCurrentConnectionString());
        details.put("basePath", config.basePath());
        if (!calls.connected()) {
            details.put("zookeeper", "DOWN");
            details.put("error", "not connected to the ensemble (client " + client.getState() + ")");
            return CompletableFuture.completedFuture(new StoreHealth(false, details));
        }
        long start = System.nanoTime();
        return calls.send(cb -> client.checkExists().inBackground(cb).forPath(config.basePath()),
                "check " + config.basePath(), Code.NONODE).handle((event, error) -> {
                    if (error != null) {
                        details.put("zookeeper", "DOWN");
                        details.put("error", String.valueOf(error.getMessage()));
                        return new StoreHealth(false, details);
                    }
                    details.put("zookeeper", "UP");
                    details.put("checkMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    details.put("nodes", registry.size());
                    return new StoreHealth(true, details);
                });
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            client.getConnectionStateListenable().removeListener(registry);
            registry.clear();
            if (ownsClient) {
                client.close();
            }
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockStore[" + config.basePath() + "]";
    }
}
