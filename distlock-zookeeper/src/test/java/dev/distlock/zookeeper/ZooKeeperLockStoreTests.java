package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the ZooKeeper store does beyond the shared contract, against a real server: fencing tokens from the
 * creation zxid, waiting on the predecessor only, FIFO, waking at once, keeping a waiter's node, session states,
 * read/write rules, permits, Curator interoperability, name encoding, health, and lock parents made without a
 * synchronous call.
 */
class ZooKeeperLockStoreTests {

    private static final String BASE = "/store-tests";

    /** A base path that does not exist before its test. */
    private static final String PARENT_BASE = "/parent-tests/nested";

    static TestingServer server;

    static CuratorFramework admin;

    private final ZooKeeperNodes nodes = new ZooKeeperNodes();

    @BeforeAll
    static void startZooKeeper() {
        server = ZooKeeperServers.server();
        admin = ZooKeeperServers.admin(server.getConnectString());
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        admin.close();
        server.close();
    }

    @AfterEach
    void closeNodes() {
        nodes.close();
    }

    private static ZooKeeperLockConfig config() {
        return ZooKeeperServers.config(server.getConnectString(), BASE);
    }

    /** @return the lock's nodes in line order */
    private static List<String> line(String name) {
        List<String> children = new ArrayList<>(ZooKeeperServers.lockNodes(admin, BASE, name));
        children.sort(Comparator.comparingLong(LockPaths::sequence));
        return children;
    }

    private static String path(String name, String child) {
        return LockPaths.lockPath(BASE, name) + "/" + child;
    }

    /** @return the data watches the client has set on lock nodes (Curator also watches /zookeeper/config) */
    private static List<String> lockWatches(ZooKeeper zk) {
        return WatchersDebug.getDataWatches(zk).stream().filter(p -> p.startsWith(BASE + "/")).toList();
    }

    private static CompletableFuture<Long> lockAsync(StoreLockService node, String name, LockOptions options,
            ConcurrentLinkedQueue<String> order, String who) {
        return CompletableFuture.supplyAsync(() -> {
            try (LockHandle handle = node.lock(name, options)) {
                order.add(who);
                return handle.fencingToken();
            }
        });
    }

    @Test
    void fencingTokenIsTheCreationZxidAndGrowsWhenTheParentNodeIsMadeAgain() throws Exception {
        StoreLockService a = nodes.node(config());
        long last;
        try (LockHandle handle = a.lock("remade")) {
            Stat stat = admin.checkExists().forPath(path("remade", line("remade").get(0)));
            assertThat(handle.fencingToken()).isEqualTo(stat.getCzxid());
            last = handle.fencingToken();
        }
        for (int i = 0; i < 5; i++) {
            try (LockHandle handle = a.lock("remade")) {
                assertThat(handle.fencingToken()).isGreaterThan(last);
                last = handle.fencingToken();
            }
        }
        // The parent is deleted (ZooKeeper removes an empty container node by itself after a while): its sequence
        // counter starts again from 0, the zxid does not.
        admin.delete().forPath(LockPaths.lockPath(BASE, "remade"));
        try (LockHandle handle = a.lock("remade")) {
            assertThat(LockPaths.sequence(line("remade").get(0))).isZero();
            assertThat(handle.fencingToken()).isGreaterThan(last);
        }
    }

    @Test
    void eachWaiterWatchesOnlyTheNodeRightBeforeIt() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        StoreLockService c = nodes.node(config());
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        LockHandle held = a.lock("herd");
        CompletableFuture<Long> second = lockAsync(b, "herd", LockOptions.defaults(), order, "b");
        await().atMost(Duration.ofSeconds(5)).until(() -> line("herd").size() == 2);
        CompletableFuture<Long> third = lockAsync(c, "herd", LockOptions.defaults(), order, "c");
        await().atMost(Duration.ofSeconds(5)).until(() -> line("herd").size() == 3);
        List<String> line = line("herd");
        ZooKeeper zkB = nodes.store(b).client().getZookeeperClient().getZooKeeper();
        ZooKeeper zkC = nodes.store(c).client().getZookeeperClient().getZooKeeper();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(lockWatches(zkB)).containsExactly(path("herd", line.get(0)));
            assertThat(lockWatches(zkC)).containsExactly(path("herd", line.get(1)));
        });
        held.unlock();
        assertThat(third.get(10, TimeUnit.SECONDS)).isGreaterThan(second.get(10, TimeUnit.SECONDS))
                .isGreaterThan(held.fencingToken());
        assertThat(order).containsExactly("b", "c");
    }

    @Test
    void waitersAreServedInTheOrderTheyQueuedAndAreWokenAtOnce() throws Exception {
        StoreLockService holder = nodes.node(config());
        List<StoreLockService> waiters = List.of(nodes.node(config()), nodes.node(config()), nodes.node(config()));
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        LockHandle held = holder.lock("fifo");
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < waiters.size(); i++) {
            futures.add(lockAsync(waiters.get(i), "fifo", LockOptions.defaults(), order, "w" + i));
            int queued = i + 2;
            await().atMost(Duration.ofSeconds(5)).until(() -> line("fifo").size() == queued);
        }
        held.unlock();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(order).containsExactly("w0", "w1", "w2");
    }

    @Test
    void aReleaseWakesTheWaiterAtOnceNotAtItsNextRecheck() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        List<Long> handoffMicros = new ArrayList<>();
        for (int round = 0; round < 9; round++) {
            LockHandle held = a.lock("wake");
            long attempts = nodes.counts(b).attempts();
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                try (LockHandle handle = b.lock("wake")) {
                    return System.nanoTime();
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> nodes.counts(b).attempts() > attempts);
            long releasedAt = System.nanoTime();
            held.unlock();
            handoffMicros.add((acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt) / 1000);
        }
        handoffMicros.sort(null);
        // Without the watch's wake-up the waiter would try again only at its next re-check, up to 500 ms later
        // (250 ms in the median).
        assertThat(handoffMicros.get(handoffMicros.size() / 2)).as("median hand-off in µs of %s", handoffMicros)
                .isLessThan(100_000);
    }

    @Test
    void aWaiterKeepsItsNodeAcrossRetriesAndGivingUpDeletesIt() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        LockHandle held = a.lock("patient");
        CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture.supplyAsync(
                () -> b.tryLock("patient", LockOptions.defaults().withWaitTime(Duration.ofMillis(1800))));
        await().atMost(Duration.ofSeconds(5)).until(() -> line("patient").size() == 2);
        List<String> queued = line("patient");
        await().atMost(Duration.ofSeconds(5)).until(() -> nodes.counts(b).attempts() >= 3);
        assertThat(line("patient")).as("the same node across retries").isEqualTo(queued);
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> line("patient").equals(queued.subList(0, 1)));
        assertThat(b.tryLock("patient", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> line("patient").equals(queued.subList(0, 1)));
        held.unlock();
    }

    @Test
    void aSuspendedConnectionMakesIsHeldFalseAtOnceAndTheSurvivingSessionKeepsTheLock() throws Exception {
        AtomicInteger lost = new AtomicInteger();
        StoreLockService a = nodes.node(config().withSessionTimeout(Duration.ofSeconds(6)), new LockListener() {
            @Override
            public void leaseLost(LockHandle handle) {
                lost.incrementAndGet();
            }
        });
        LockHandle handle = a.lock("suspended");
        server.stop();
        try {
            await().atMost(Duration.ofSeconds(2)).until(() -> !handle.isHeld());
            assertThat(a.storeHealth(Duration.ofMillis(300)).up()).isFalse();
        }
        finally {
            server.restart();
        }
        await().atMost(Duration.ofSeconds(10)).until(handle::isHeld);
        assertThat(lost).as("the session survived: no lease was lost").hasValue(0);
        assertThat(a.storeHealth(Duration.ofSeconds(2)).up()).isTrue();
        handle.unlock();
        assertThat(line("suspended")).isEmpty();
    }

    @Test
    void aWaiterThatFailsClosedLeavesTheLineOnceTheConnectionIsBack() throws Exception {
        ZooKeeperLockConfig longSession = config().withSessionTimeout(Duration.ofSeconds(6));
        StoreLockService a = nodes.node(longSession);
        StoreLockService b = nodes.node(longSession.withCommandTimeout(Duration.ofMillis(500)));
        LockHandle held = a.lock("orphan");
        List<String> holderOnly = line("orphan");
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> b.lock("orphan",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))));
        await().atMost(Duration.ofSeconds(5)).until(() -> line("orphan").size() == 2);
        server.stop();
        try {
            await().atMost(Duration.ofSeconds(5)).until(waiter::isCompletedExceptionally);
        }
        finally {
            server.restart();
        }
        // Both sessions survive the outage: the waiter's node would stay in line, ahead of every later request.
        await().atMost(Duration.ofSeconds(10)).until(() -> line("orphan").equals(holderOnly));
        await().atMost(Duration.ofSeconds(10)).until(held::isHeld);
        held.unlock();
        assertThat(b.tryLock("orphan", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)))).isPresent()
                .get().satisfies(LockHandle::unlock);
    }

    @Test
    void anAttemptNeverWaitsForTheEnsembleOnTheCallersThreadAndCancelDeletesItsNodeOnceBack() throws Exception {
        StoreLockService a = nodes.node(config().withSessionTimeout(Duration.ofSeconds(15))
                .withCommandTimeout(Duration.ofSeconds(3)));
        ZooKeeperLockStore store = nodes.store(a);
        LockHandle held = a.lock("async");
        List<String> holderOnly = line("async");
        LockRequest waiter = new LockRequest("async", LockType.REENTRANT, UUID.randomUUID().toString(),
                Duration.ZERO, Duration.ofSeconds(30), true);
        server.stop();
        CompletableFuture<Attempt> attempt;
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> !store.client().getZookeeperClient().isConnected());
            // A store that waited on the caller's thread for the connection would take the command timeout (3 s).
            attempt = CompletableFuture.supplyAsync(() -> store.attempt(waiter, Waiting.upTo(Duration.ofMillis(10_000))))
                    .get(1, TimeUnit.SECONDS).toCompletableFuture();
            assertThat(attempt).as("answered later, on Curator's thread").isNotDone();
        }
        finally {
            server.restart();
        }
        // Curator sends the held-back create once connected: the waiter queues behind the holder and watches it.
        assertThat((attempt.get(20, TimeUnit.SECONDS) instanceof Attempt.Granted)).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> line("async").size() == 2);
        store.cancel(waiter).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(line("async")).as("cancel deleted the waiter's node").isEqualTo(holderOnly);
        held.unlock();
    }

    @Test
    void lateNewsOfALostSessionLeavesTheLocksOfTheCurrentSessionAlone() {
        AtomicInteger lost = new AtomicInteger();
        StoreLockService a = nodes.node(config(), new LockListener() {
            @Override
            public void leaseLost(LockHandle handle) {
                lost.incrementAndGet();
            }
        });
        LockHandle handle = a.lock("late-news");
        // Curator delivers connection states on a thread of its own: LOST for an old session may arrive after the
        // client already made a new one, and the nodes of the new session are alive.
        ZooKeeperLockStore store = nodes.store(a);
        store.registry().stateChanged(store.client(), ConnectionState.LOST);
        store.registry().stateChanged(store.client(), ConnectionState.RECONNECTED);
        assertThat(handle.isHeld()).isTrue();
        assertThat(lost).hasValue(0);
        handle.unlock();
        assertThat(line("late-news")).as("released, not forgotten").isEmpty();
    }

    @Test
    void readersShareButDoNotOvertakeAQueuedWriter() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        StoreLockService c = nodes.node(config());
        LockOptions read = LockOptions.defaults().withType(LockType.READ);
        LockHandle reader = a.lock("rw", read);
        Optional<LockHandle> sharing = c.tryLock("rw", read.withWaitTime(Duration.ZERO));
        assertThat(sharing).as("readers share").isPresent();
        sharing.get().unlock();
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        CompletableFuture<Long> writer = lockAsync(b, "rw", LockOptions.defaults().withType(LockType.WRITE), order,
                "writer");
        await().atMost(Duration.ofSeconds(5)).until(() -> line("rw").size() == 2);
        assertThat(c.tryLock("rw", read.withWaitTime(Duration.ofMillis(300))))
                .as("a reader behind a queued writer waits").isEmpty();
        reader.unlock();
        assertThat(writer.get(10, TimeUnit.SECONDS)).isGreaterThan(reader.fencingToken());
        c.lock("rw", read).unlock();
    }

    @Test
    void curatorsReadWriteLockAndDistlockExcludeEachOther() throws Exception {
        StoreLockService a = nodes.node(config());
        InterProcessReadWriteLock curator = new InterProcessReadWriteLock(admin, LockPaths.lockPath(BASE, "shared"));
        curator.writeLock().acquire();
        assertThat(a.tryLock("shared", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        curator.writeLock().release();
        try (LockHandle handle = a.lock("shared")) {
            assertThat(curator.writeLock().acquire(200, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(curator.readLock().acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        }
        try (LockHandle handle = a.lock("shared", LockOptions.defaults().withType(LockType.READ))) {
            assertThat(curator.readLock().acquire(2, TimeUnit.SECONDS)).as("readers share").isTrue();
            curator.readLock().release();
        }
        assertThat(curator.writeLock().acquire(2, TimeUnit.SECONDS)).isTrue();
        curator.writeLock().release();
    }

    @Test
    void aPermitWaiterWatchesTheLineAndIsWokenAtOnceByWhicheverHolderLeaves() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        StoreLockService c = nodes.node(config());
        LockOptions two = LockOptions.defaults().withPermits(2);
        List<Long> handoffMicros = new ArrayList<>();
        for (int round = 0; round < 9; round++) {
            LockHandle first = a.lock("pool-wake", two);
            LockHandle second = b.lock("pool-wake", two);
            long attempts = nodes.counts(c).attempts();
            CompletableFuture<LockHandle> waiting = CompletableFuture.supplyAsync(() -> c.lock("pool-wake", two));
            await().atMost(Duration.ofSeconds(5)).until(() -> nodes.counts(c).attempts() > attempts);
            ZooKeeper zkC = nodes.store(c).client().getZookeeperClient().getZooKeeper();
            await().atMost(Duration.ofSeconds(5)).until(() -> WatchersDebug.getChildWatches(zkC)
                    .contains(LockPaths.lockPath(BASE, "pool-wake")));
            // The first holder, not the node right before the waiter: watching one predecessor would miss it.
            LockHandle leaving = round % 2 == 0 ? first : second;
            LockHandle staying = round % 2 == 0 ? second : first;
            long releasedAt = System.nanoTime();
            leaving.unlock();
            LockHandle taken = waiting.get(10, TimeUnit.SECONDS);
            handoffMicros.add((System.nanoTime() - releasedAt) / 1000);
            assertThat(taken.fencingToken()).isGreaterThan(staying.fencingToken());
            assertThat(staying.isHeld()).isTrue();
            taken.unlock();
            staying.unlock();
        }
        handoffMicros.sort(null);
        // Without the children watch's wake-up the waiter would try again only at its next re-check, up to 500 ms
        // later (250 ms in the median).
        assertThat(handoffMicros.get(handoffMicros.size() / 2)).as("median hand-off in µs of %s", handoffMicros)
                .isLessThan(100_000);
    }

    @Test
    void permitWaitersAreServedInTheOrderTheyQueued() throws Exception {
        StoreLockService holder = nodes.node(config());
        List<StoreLockService> waiters = List.of(nodes.node(config()), nodes.node(config()), nodes.node(config()));
        LockOptions two = LockOptions.defaults().withPermits(2);
        LockHandle first = holder.lock("pool-fifo", two);
        LockHandle second = holder.lock("pool-fifo", two);
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < waiters.size(); i++) {
            futures.add(lockAsync(waiters.get(i), "pool-fifo", two, order, "w" + i));
            int queued = i + 3;
            await().atMost(Duration.ofSeconds(5)).until(() -> line("pool-fifo").size() == queued);
        }
        assertThat(order).as("both permits held").isEmpty();
        second.unlock(); // one permit for all three waiters, each releasing it to the next
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(order).containsExactly("w0", "w1", "w2");
        assertThat(futures).extracting(CompletableFuture::join).isSorted();
        assertThat(first.isHeld()).isTrue();
        first.unlock();
    }

    @Test
    void aForcedReleaseEndsEveryPermitHolderAndServesTheWaiters() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        StoreLockService c = nodes.node(config());
        LockOptions two = LockOptions.defaults().withPermits(2);
        LockHandle first = a.lock("pool-forced", two);
        LockHandle second = b.lock("pool-forced", two);
        CompletableFuture<LockHandle> waiting = CompletableFuture.supplyAsync(() -> c.lock("pool-forced", two));
        await().atMost(Duration.ofSeconds(5)).until(() -> line("pool-forced").size() == 3);

        assertThat(c.forceRelease("pool-forced")).isTrue();
        LockHandle taken = waiting.get(10, TimeUnit.SECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(second.fencingToken());
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.isHeld() && !second.isHeld());
        assertThat(line("pool-forced")).as("only the waiter's node is left").hasSize(1);
        taken.unlock();
        assertThat(c.forceRelease("pool-forced")).as("a free name").isFalse();
    }

    @Test
    void anAttemptThatDisagreesOnThePermitsLeavesNoNodeBehind() {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        try (LockHandle held = a.lock("pool-mismatch", LockOptions.defaults().withPermits(3))) {
            List<String> before = line("pool-mismatch");
            assertThatThrownBy(() -> b.lock("pool-mismatch", LockOptions.defaults().withPermits(2)))
                    .isInstanceOf(LockException.class).hasMessageContaining("3 permits");
            assertThat(line("pool-mismatch")).as("deleted before the caller heard of it").isEqualTo(before);
            try (LockHandle agreeing = b.lock("pool-mismatch", LockOptions.defaults().withPermits(3))) {
                assertThat(agreeing.fencingToken()).isGreaterThan(held.fencingToken());
            }
        }
    }

    @Test
    void aNodeOfAnotherNumberThatDoesNotHoldMakesNoRightfulCallerFail() throws Exception {
        StoreLockService a = nodes.node(config());
        StoreLockService b = nodes.node(config());
        LockOptions two = LockOptions.defaults().withPermits(2).withWaitTime(Duration.ZERO);
        try (LockHandle held = a.lock("pool-wrong", two)) {
            // A caller with the wrong number, between its create and its refusal's delete (made by hand: the
            // real one deletes its node within one round trip).
            String wrong = admin.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(
                    LockPaths.lockPath(BASE, "pool-wrong") + "/_c_" + UUID.randomUUID() + "-" + LockPaths.PERMITS
                            + "3__");
            try {
                Optional<LockHandle> second = b.tryLock("pool-wrong", two);
                assertThat(second).as("the second permit, the wrong node ignored").isPresent();
                assertThat(b.tryLock("pool-wrong", two)).as("a third holder of two permits").isEmpty();
                assertThatThrownBy(() -> b.tryLock("pool-wrong", two.withPermits(3)))
                        .as("the wrong number itself").isInstanceOf(LockException.class)
                        .hasMessageContaining("2 permits");
                second.get().unlock();
            }
            finally {
                admin.delete().forPath(wrong);
            }
        }
    }

    @Test
    void namesThatAreNoValidNodeNamesAreEncodedAndStayDistinct() throws Exception {
        StoreLockService a = nodes.node(config());
        for (String name : List.of("a/b", ".", "..", "tab\tname", "grüße € 😀", "50%", "/lead/")) {
            try (LockHandle handle = a.lock(name)) {
                assertThat(line(name)).hasSize(1);
            }
        }
        try (LockHandle slash = a.lock("a/b")) {
            Optional<LockHandle> encodedLookalike = a.tryLock("a%2Fb", LockOptions.defaults()
                    .withWaitTime(Duration.ZERO));
            assertThat(encodedLookalike).isPresent();
            encodedLookalike.get().unlock();
        }
    }

    /**
     * A lock's parent node (a container) is made on the way, asynchronously. Curator's own
     * {@code creatingParentContainersIfNeeded()} makes missing parents with synchronous calls on its single
     * background thread, where every caller locking a new name queued behind the others' parent creations.
     */
    @Test
    void newNamesAndAMissingBasePathAreMadeWithoutASynchronousCall() throws Exception {
        AtomicInteger synchronous = new AtomicInteger();
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(10_000).retryPolicy(new RetryOneTime(100))
                .zookeeperFactory((connect, session, watcher, readOnly) -> new CountingZooKeeper(connect, session,
                        watcher, synchronous))
                .build();
        client.start();
        assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        ZooKeeperLockConfig config = ZooKeeperServers.config(server.getConnectString(), PARENT_BASE);
        try (ZooKeeperLockStore store = new ZooKeeperLockStore(client, config);
                StoreLockService service = new StoreLockService(store, LockConfig.defaults()
                        .withWaitTime(Duration.ofSeconds(5)), LockListener.NONE)) {
            service.start();
            long last = 0;
            for (String name : List.of("first", "second", "first")) { // the base path is missing at first
                try (LockHandle handle = service.lock(name)) {
                    assertThat(handle.fencingToken()).isGreaterThan(last);
                    last = handle.fencingToken();
                    assertThat(ZooKeeperServers.lockNodes(admin, PARENT_BASE, name)).hasSize(1);
                }
            }
            // A parent that went (ZooKeeper deletes empty containers by itself) is made again.
            admin.delete().forPath(LockPaths.lockPath(PARENT_BASE, "first"));
            try (LockHandle handle = service.lock("first")) {
                assertThat(handle.fencingToken()).isGreaterThan(last);
            }
        }
        finally {
            client.close();
        }
        assertThat(synchronous).as("synchronous ZooKeeper calls (Curator's mkdirs on its background thread)")
                .hasValue(0);
    }

    /** Counts the synchronous calls that making parent nodes uses; the asynchronous ones pass through. */
    private static final class CountingZooKeeper extends ZooKeeper {

        private final AtomicInteger synchronous;

        CountingZooKeeper(String connect, int session, Watcher watcher, AtomicInteger synchronous)
                throws java.io.IOException {
            super(connect, session, watcher);
            this.synchronous = synchronous;
        }

        @Override
        public Stat exists(String path, boolean watch) throws KeeperException, InterruptedException {
            synchronous.incrementAndGet();
            return super.exists(path, watch);
        }

        @Override
        public String create(String path, byte[] data, List<ACL> acl, CreateMode mode)
                throws KeeperException, InterruptedException {
            synchronous.incrementAndGet();
            return super.create(path, data, acl, mode);
        }
    }
}
