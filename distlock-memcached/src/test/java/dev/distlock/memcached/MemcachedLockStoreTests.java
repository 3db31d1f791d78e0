package dev.distlock.memcached;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.distlock.LockHandle;
import dev.distlock.LockInfo;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.Waiting;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What only the Memcached store has: its expiry in whole seconds, its keys, and the items it writes, read from a
 * real server ({@link MemcachedTestServer}).
 */
class MemcachedLockStoreTests {

    static MemcachedTestServer server;

    private final List<StoreLockService> nodes = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = MemcachedTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) { // null when the binary is missing and the tests were skipped
            server.close();
        }
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(StoreLockService::close);
    }

    private StoreLockService node() {
        StoreLockService node = new StoreLockService(MemcachedLockStore.connect(MemcachedFixtures.config(
                server.address(), Duration.ofSeconds(2))), LockConfig.defaults(), LockListener.NONE);
        node.start();
        nodes.add(node);
        return node;
    }

    @Test
    void theExpiryIsTheLeaseRoundedUpToWholeSecondsPlusAGraceFarBeyondMemcachedsClockLag() {
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofMillis(800))).isEqualTo(11);
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofSeconds(1))).isEqualTo(11);
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofMillis(1001))).isEqualTo(12);
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofSeconds(30))).isEqualTo(40);
        assertThatThrownBy(() -> MemcachedLockStore.expirySeconds(Duration.ofDays(31)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("30 days");
    }

    @Test
    void aFixedLeaseOfLessThanASecondHoldsAtLeastItsLeaseAndEndsForOthersOneSecondAfterItsWrittenEnd() {
        StoreLockService holder = node();
        StoreLockService other = node();
        Duration lease = Duration.ofMillis(800);
        // Measured from before the holder's request: the lease starts when the holder writes the item, a round trip
        // before its lock() returns (a loaded CI machine once measured 1.79 s from the return). The wall clock, as the
        // store ends leases by it.
        Instant asked = Instant.now().truncatedTo(ChronoUnit.MICROS);
        LockHandle held = holder.lock("sub-second", LockOptions.defaults().withLeaseTime(lease));
        LockHandle next = other.lock("sub-second", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        Duration after = Duration.between(asked, Instant.now());
        // The lease written in the item, plus the clock skew the store allows, long before the item's expiry (11 s).
        assertThat(after).as("held for the lease and the allowed skew").isGreaterThanOrEqualTo(lease.plusSeconds(1))
                .isLessThan(lease.plusSeconds(2).plusMillis(800)); // plus the waiter's back-off and a busy machine
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.unlock();
    }

    @Test
    void aNameThatIsNoMemcachedKeyIsEncodedAndDescribed() {
        StoreLockService node = node();
        String name = "order 42/ü:\u0001";
        try (LockHandle handle = node.lock(name)) {
            String key = MemcachedLockStore.key(MemcachedFixtures.KEY_PREFIX, name);
            assertThat(key).matches("[!-~]+").startsWith("fixture:");
            assertThat(server.value(key)).startsWith(handle.fencingToken() + "|");
            LockInfo info = node().describe(name).orElseThrow();
            assertThat(info.name()).isEqualTo(name);
            assertThat(info.fencingToken()).isEqualTo(handle.fencingToken());
        }
        assertThatThrownBy(() -> node.lock("x".repeat(300))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("250");
    }

    @Test
    void theItemHoldsTokenLeaseEndOwnerAndHolderAndNeverTellsTheOwnerToken() {
        StoreLockService node = new StoreLockService(MemcachedLockStore.connect(MemcachedFixtures.config(
                server.address(), Duration.ofSeconds(2))), LockConfig.defaults().withInstanceId("app@host|1"),
                LockListener.NONE);
        node.start();
        nodes.add(node);
        try (LockHandle handle = node.lock("item")) {
            String[] fields = server.value("fixture:item").split("\\|", 4);
            assertThat(Long.parseLong(fields[0])).isEqualTo(handle.fencingToken());
            assertThat(fields[2]).matches("[A-Za-z0-9_-]{22}");
            assertThat(fields[3]).isEqualTo("app@host|1");
            LockInfo info = node().describe("item").orElseThrow();
            assertThat(info.holder()).isEqualTo("app@host|1");
            assertThat(info.toString()).doesNotContain(fields[2]);
        }
        assertThat(server.value("fixture:item")).as("released: the floor is left")
                .matches("[0-9]+\\|0\\|-\\|");
    }

    @Test
    void anUncontendedReleaseIsOneCasWithTheCasItsAcquireReadInTheSameRoundTrip() {
        StoreLockService node = node();
        node.lock("warm").unlock();
        long before = server.stat("cmd_get");
        LockHandle handle = node.lock("one-trip");
        long acquired = server.stat("cmd_get");
        long casHits = server.stat("cas_hits");
        handle.unlock();
        assertThat(server.stat("cmd_get")).as("the release read nothing").isEqualTo(acquired);
        assertThat(server.stat("cas_hits")).as("the release was one cas").isEqualTo(casHits + 1);
        assertThat(acquired - before).as("the acquire read its item, pipelined behind the add").isEqualTo(1);
        assertThat(server.value("fixture:one-trip")).as("released: the floor is left")
                .isEqualTo(handle.fencingToken() + "|0|-|");
    }

    @Test
    void aReleaseWhoseItemChangedSinceItsAcquireIsOwnerCheckedAndLeavesTheNewHolderAlone() {
        StoreLockService first = node();
        StoreLockService second = node();
        LockHandle stale = first.lock("changed", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        assertThat(second.forceRelease("changed")).isTrue();
        LockHandle current = second.lock("changed", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        stale.unlock();
        assertThat(server.value("fixture:changed")).as("still the new holder's")
                .startsWith(current.fencingToken() + "|").doesNotContain("|-|");
        current.unlock();
        assertThat(server.value("fixture:changed")).isEqualTo(current.fencingToken() + "|0|-|");
    }

    /**
     * The engine cancels an attempt whose answer came too late, chained on the attempt's own stage (StoreCalls): by
     * then its add may have been granted and its CAS kept. Nothing of the attempt may stay behind.
     */
    @Test
    void aCancelledAttemptWhoseAddWasGrantedLeavesNoAddedCas() {
        try (MemcachedLockStore store = MemcachedLockStore.connect(MemcachedFixtures.config(server.address(),
                Duration.ofSeconds(2)))) {
            store.start(StoreEvents.NONE);
            LockRequest request = new LockRequest("cancelled-late", LockType.REENTRANT, UUID.randomUUID().toString(),
                    Duration.ZERO, Duration.ofSeconds(30), false);
            var attempt = store.attempt(request, Waiting.LAST_TRY).toCompletableFuture();
            attempt.handle((answer, failure) -> store.cancel(request)) // as the engine chains it
                    .thenCompose(cancel -> cancel).join();
            assertThat(attempt.join()).as("the add was granted").isInstanceOf(Attempt.Granted.class);
            assertThat(server.value("fixture:cancelled-late")).as("the cancel freed the item").contains("|-|");
            assertThat(store.addedItems.size()).as("no added CAS left by the cancelled attempt").isZero();
        }
    }

    /**
     * A lease that runs out unreleased (a lock taken "for at least" its lease and never unlocked) gets no release
     * from the engine, as Memcached ends it by itself: its added CAS must not take the room of live leases' for good.
     */
    @Test
    void addedCasOfLeasesThatRanOutMakeRoomForNewOnesOnceTheMapIsFull() {
        MemcachedLockStore store = MemcachedLockStore.connect(MemcachedFixtures.config(server.address(),
                Duration.ofSeconds(2)), Clock.systemUTC(), 2);
        StoreLockService node = new StoreLockService(store, LockConfig.defaults(), LockListener.NONE);
        node.start();
        nodes.add(node);
        LockOptions oneSecond = LockOptions.defaults().withLeaseTime(Duration.ofSeconds(1));
        node.lock("ran-out-1", oneSecond);
        node.lock("ran-out-2", oneSecond); // neither is unlocked: the map of added CAS is full
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            long gets = server.stat("cmd_get");
            LockHandle handle = node.lock("after-them-" + UUID.randomUUID()); // a new item: added, not updated
            long acquired = server.stat("cmd_get");
            handle.unlock();
            assertThat(acquired - gets).as("the acquire's pipelined read").isEqualTo(1);
            assertThat(server.stat("cmd_get")).as("a release by its added CAS reads nothing").isEqualTo(acquired);
        });
    }

    @Test
    void repliesCompleteOnTheConnectionsEventLoopInTheOrderTheServerSentThem() throws Exception {
        // One wake-up fewer per call than Folsom's default, which hands each reply to a shared pool, in no set order.
        try (MemcachedConnection connection = new MemcachedConnection(MemcachedFixtures.config(server.address(),
                Duration.ofSeconds(2)))) {
            connection.client().connectFuture().toCompletableFuture().get();
            ConcurrentLinkedQueue<Integer> completed = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>(); // those that completed a reply, but this one
            Thread sender = Thread.currentThread(); // completes a reply that came before its callback was added
            List<CompletableFuture<?>> replies = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                int sent = i;
                replies.add(connection.client().add("order-" + i, "v", 10).thenAccept(status -> {
                    completed.add(sent);
                    synchronized (threads) {
                        if (Thread.currentThread() != sender) {
                            threads.add(Thread.currentThread());
                        }
                    }
                }).toCompletableFuture());
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get();
            assertThat(List.copyOf(completed)).as("completed in the order sent").isSorted().hasSize(500);
            assertThat(threads).isNotEmpty().allSatisfy(thread -> assertThat(thread).as("a Netty event loop's thread")
                    .isInstanceOf(FastThreadLocalThread.class));
        }
    }

    @Test
    void aFullServerWithEvictionsOffFailsTheLockClosedInsteadOfEvicting() {
        try (MemcachedTestServer full = MemcachedTestServer.start(false, 2)) {
            StoreLockService node = new StoreLockService(MemcachedLockStore.connect(MemcachedFixtures.config(
                    full.address(), Duration.ofSeconds(2))), LockConfig.defaults(), LockListener.NONE);
            node.start();
            nodes.add(node);
            full.fillUp();
            assertThatThrownBy(() -> node.lock("full")).isInstanceOf(LockUnavailableException.class)
                    .hasStackTraceContaining("OUT_OF_MEMORY");
        }
    }
}
