package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper {@link LockStore}, on an Apache Curator client.
 * <ul>
 * <li>A request creates one ephemeral sequential node under {@code <base-path>/<name>} (a container node that
 * ZooKeeper removes once empty), with Curator's protection against lost create replies, and lists its siblings in
 * the same round trip. It holds the lock when no conflicting node precedes it ({@link QueuePosition}); otherwise it
 * watches only the node it waits for and keeps its node, and its place, across the retries of the request.</li>
 * <li>The fencing token is the node's creation zxid: ZooKeeper's transaction ids grow across the whole ensemble,
 * across leader changes (new epoch) and across the re-creation of the parent node, where the sequence numbers
 * would start again from 0.</li>
 * <li>The lease is the session: nothing is renewed; a suspended connection makes {@link #isHeld} false at once, a
 * lost session loses every lease ({@link NodeRegistry}).</li>
 * <li>Every call is bounded by {@code distlock.command-timeout}; a request that failed is undone.</li>
 * </ul>
 */
public class ZooKeeperLockStore implements LockStore {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);

    /** A waiter watches its predecessor; this only bounds the engine's fallback re-check. */
    private static final long RECHECK_MILLIS = 500;

    private final CuratorFramework client;

    private final boolean ownsClient;

    private final ZooKeeperLockConfig config;

    private final ZooKeeperCalls calls;

    private final NodeRegistry registry;

    private final LockNodeCalls nodes;

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
        this.calls = new ZooKeeperCalls(client, config.commandTimeout().toMillis());
        this.registry = new NodeRegistry(calls::currentSession);
        this.nodes = new LockNodeCalls(client, calls, registry, config.basePath());
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
        registry.start(events);
        client.getConnectionStateListenable().addListener(registry);
    }

    @Override
    public Attempt attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        String what = "acquire '" + request.name() + "'";
        long deadline = calls.deadline();
        LockNode node = registry.byOwner(request.ownerToken());
        long session = calls.currentSession();
        if (node != null && session != 0 && node.sessionId != session) {
            registry.forget(node); // made in a session that ended: ZooKeeper deleted it
            node = null;
        }
        try {
            calls.requireConnected(deadline, what);
            List<String> children = null;
            for (int round = 0; round < 8; round++) {
                if (node == null) {
                    LockNodeCalls.Created created = nodes.create(request, deadline, what);
                    node = created.node();
                    children = created.children();
                }
                if (children == null) {
                    children = nodes.list(node, deadline, what);
                }
                QueuePosition position = QueuePosition.of(children, node.name, request.shared());
                if (!position.found()) { // deleted behind our back while waiting: queue again
                    registry.forget(node);
                    node = null;
                    children = null;
                    continue;
                }
                if (position.granted()) {
                    return grant(node, deadline, what);
                }
                if (remainingWaitMillis == 0) { // a last (or only) attempt: leave the line now
                    cancel(request);
                    return Attempt.busy(RECHECK_MILLIS);
                }
                if (nodes.watchPredecessor(node, node.lockPath + "/" + position.predecessor(), deadline, what)) {
                    return Attempt.busy(Math.min(RECHECK_MILLIS, remainingWaitMillis));
                }
                children = null; // the predecessor went meanwhile: look again
            }
            return Attempt.busy(1);
        }
        catch (RuntimeException ex) {
            // The engine gives the request up: a node left in line would block everyone behind it for as long
            // as this session lives (the delete is retried once the connection is back).
            cancel(request);
            throw ex;
        }
    }

    private Attempt grant(LockNode node, long deadline, String what) {
        if (registry.byOwner(node.owner()) != node) {
            throw new LockUnavailableException("The ZooKeeper session ended during the attempt: cannot " + what);
        }
        long token = node.czxid;
        registry.stopWaiting(node);
        node.held = true;
        nodes.watchHeld(node);
        return Attempt.acquired(token);
    }

    @Override
    public void cancel(LockRequest request) {
        LockNode node = registry.byOwner(request.ownerToken());
        if (node != null && registry.forget(node)) {
            nodes.deleteQuietly(node.path);
        }
    }

    @Override
    public ReleaseResult release(Lease lease) {
        LockRequest request = lease.request();
        LockNode node = registry.byOwner(request.ownerToken());
        if (node == null || !node.held || !registry.forget(node)) {
            return ReleaseResult.EXPIRED; // lost with its session, or deleted
        }
        String what = "release '" + request.name() + "'";
        return nodes.delete(node.path, calls.deadline(), what) ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
    }

    /** @return false: a lease lasts as long as the ZooKeeper session, nothing is renewed */
    @Override
    public boolean leasesExpire() {
        return false;
    }

    @Override
    public List<RenewalResult> renew(List<? extends Lease> leases) {
        return leases.stream().map(lease -> isHeld(lease) ? RenewalResult.RENEWED : RenewalResult.LOST).toList();
    }

    /** @return false while the session is suspended, and once the node is known gone */
    @Override
    public boolean isHeld(Lease lease) {
        LockNode node = registry.byOwner(lease.request().ownerToken());
        return node != null && node.held && !registry.suspended();
    }

    @Override
    public StoreHealth health(Duration timeout) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("connectString", client.getZookeeperClient().getCurrentConnectionString());
        details.put("basePath", config.basePath());
        if (!calls.connected()) {
            details.put("zookeeper", "DOWN");
            details.put("error", "not connected to the ensemble (client " + client.getState() + ")");
            return new StoreHealth(false, details);
        }
        long start = System.nanoTime();
        try {
            calls.await(calls.send(cb -> client.checkExists().inBackground(cb).forPath(config.basePath()),
                    "check"), start + timeout.toNanos(), "check " + config.basePath(), Code.NONODE);
            details.put("zookeeper", "UP");
            details.put("checkMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            details.put("nodes", registry.size());
            return new StoreHealth(true, details);
        }
        catch (LockUnavailableException ex) {
            details.put("zookeeper", "DOWN");
            details.put("error", String.valueOf(ex.getMessage()));
            return new StoreHealth(false, details);
        }
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
