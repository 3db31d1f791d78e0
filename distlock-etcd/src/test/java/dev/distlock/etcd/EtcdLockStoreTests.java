package dev.distlock.etcd;

import dev.distlock.spi.Waiting;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.StoreLockService;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.test.support.LockHistory;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the etcd store does beyond the contract, against one real etcd member: the release that cannot delete a
 * newer key, the watch that wakes only the next waiter, arrival order across nodes, lease rounding, the shared
 * lease's loss, key names that cannot collide, and permits: the waiter woken by any holder ahead, the refused
 * attempt that leaves no key, the forced release of every permit holder.
 */
class EtcdLockStoreTests {

    private static final String PREFIX = "store-tests";

    static EtcdTestCluster etcd;

    static Client admin;

    private final LockHistory history = new LockHistory();

    private final EtcdNodes nodes = new EtcdNodes();

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdTestCluster.shared();
        admin = etcd.admin();
    }

    @AfterEach
    void closeNodes() {
        nodes.close();
    }

    private static EtcdLockConfig config() {
        return EtcdLockConfig.defaults().withEndpoints(etcd.endpoints()).withKeyPrefix(PREFIX)
                .withCommandTimeout(Duration.ofSeconds(5));
    }

    private StoreLockService node() {
        return nodes.node(config(), history.listener());
    }

    private static EtcdLockStore startedStore(StoreEvents events) {
        EtcdLockStore store = EtcdLockStore.connect(config());
        store.start(events);
        return store;
    }

    private static LockRequest request(String name, Duration lease, boolean watchdog) {
        return new LockRequest(name, LockType.REENTRANT, UUID.randomUUID().toString(), Duration.ofSeconds(30), lease,
                watchdog);
    }

    /** The keys of a lock in etcd, oldest first. */
    private static List<KeyValue> keysOf(String name) {
        return admin.getKVClient().get(new EtcdKeys(PREFIX).lockPrefix(name), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build())
                .join().getKvs();
    }

    @Test
    void aLateReleaseOfAnEarlierHoldDoesNotDeleteTheKeyOfTheSameRequestsNewerHold() {
        try (EtcdLockStore store = startedStore(StoreEvents.NONE)) {
            LockRequest request = request("late-release", Duration.ofSeconds(30), true);
            long first = ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken();
            assertThat(answer(store.release(new StoreLease(request, first)))).isEqualTo(ReleaseResult.RELEASED);
            long second = ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken();
            assertThat(second).isGreaterThan(first);
            // etcd #22082: a release that deletes by key alone, late or retried, deletes the newer hold's key.
            assertThat(answer(store.release(new StoreLease(request, first)))).isEqualTo(ReleaseResult.EXPIRED);
            assertThat(keysOf("late-release")).singleElement()
                    .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(second));
            LockRequest other = request("late-release", Duration.ofSeconds(30), true);
            assertThat((answer(store.attempt(other, Waiting.LAST_TRY)) instanceof Attempt.Granted)).as("the newer hold still holds").isFalse();
            assertThat(answer(store.release(new StoreLease(request, second)))).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    @Test
    void aReleaseWakesOnlyTheWaiterRightBehindIt() {
        RecordingEvents events = new RecordingEvents();
        try (EtcdLockStore store = startedStore(events)) {
            LockRequest holder = request("wake-one", Duration.ofSeconds(30), true);
            LockRequest next = request("wake-one", Duration.ofSeconds(30), true);
            LockRequest last = request("wake-one", Duration.ofSeconds(30), true);
            long token = ((Attempt.Granted) answer(store.attempt(holder, Waiting.LAST_TRY))).fencingToken();
            assertThat((answer(store.attempt(next, Waiting.upTo(Duration.ofMillis(30_000)))) instanceof Attempt.Granted)).isFalse();
            assertThat((answer(store.attempt(last, Waiting.upTo(Duration.ofMillis(30_000)))) instanceof Attempt.Granted)).isFalse();

            answer(store.release(new StoreLease(holder, token)));
            // Only the watch can tell the store: nobody attempts meanwhile.
            await().atMost(Duration.ofSeconds(5)).until(() -> events.woken.contains(next.ownerToken()));
            assertThat(events.woken).as("the waiter behind the next one sleeps on").doesNotContain(last.ownerToken());

            long nextToken = ((Attempt.Granted) answer(store.attempt(next, Waiting.upTo(Duration.ofMillis(30_000))))).fencingToken();
            assertThat(nextToken).isGreaterThan(token);
            answer(store.release(new StoreLease(next, nextToken)));
            await().atMost(Duration.ofSeconds(5)).until(() -> events.woken.contains(last.ownerToken()));
            long lastToken = ((Attempt.Granted) answer(store.attempt(last, Waiting.upTo(Duration.ofMillis(30_000))))).fencingToken();
            assertThat(lastToken).isGreaterThan(nextToken);
            answer(store.release(new StoreLease(last, lastToken)));
        }
    }

    @Test
    void waitersOnSeveralNodesAreServedInArrivalOrder() throws Exception {
        StoreLockService holder = node();
        List<StoreLockService> waiters = List.of(node(), node(), node());
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        LockHandle held = holder.lock("arrival");
        List<CompletableFuture<Void>> queued = new java.util.ArrayList<>();
        for (int i = 0; i < waiters.size(); i++) {
            StoreLockService waiter = waiters.get(i);
            String who = "node-" + i;
            queued.add(CompletableFuture.runAsync(() -> {
                try (LockHandle handle = waiter.lock("arrival", LockOptions.defaults()
                        .withWaitTime(Duration.ofSeconds(30)))) {
                    history.hold(who, handle, () -> order.add(who));
                }
            }));
            int keys = i + 2;
            // The next node arrives only once this one's key is in line.
            await().atMost(Duration.ofSeconds(10)).until(() -> keysOf("arrival").size() == keys);
        }
        history.hold("holder", held, () -> { });
        held.unlock();
        CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(order).containsExactly("node-0", "node-1", "node-2");
        history.assertConsistent();
    }

    @Test
    void aFixedLeaseGetsAnEtcdLeaseOfItsOwnRoundedUpToWholeSeconds() {
        try (EtcdLockStore store = startedStore(StoreEvents.NONE)) {
            LockRequest shortLease = request("rounded-short", Duration.ofMillis(300), false);
            LockRequest longer = request("rounded-long", Duration.ofMillis(2500), false);
            long shortToken = ((Attempt.Granted) answer(store.attempt(shortLease, Waiting.LAST_TRY))).fencingToken();
            long longToken = ((Attempt.Granted) answer(store.attempt(longer, Waiting.LAST_TRY))).fencingToken();
            assertThat(grantedTtl("rounded-short")).as("300 ms: 1 s, this cluster's minimum TTL").isEqualTo(1);
            assertThat(grantedTtl("rounded-long")).as("2.5 s: 3 s").isEqualTo(3);
            answer(store.release(new StoreLease(shortLease, shortToken)));
            answer(store.release(new StoreLease(longer, longToken)));
        }
    }

    private static long grantedTtl(String name) {
        long lease = keysOf(name).get(0).getLease();
        return admin.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).join().getGrantedTTL();
    }

    @Test
    void watchdogLocksOfOneInstanceShareOneEtcdLease() {
        StoreLockService a = node();
        try (LockHandle one = a.lock("shared-1"); LockHandle two = a.lock("shared-2")) {
            assertThat(keysOf("shared-1").get(0).getLease()).isNotZero()
                    .isEqualTo(keysOf("shared-2").get(0).getLease());
            assertThat(one.isHeld() && two.isHeld()).isTrue();
        }
    }

    @Test
    void aRevokedSharedLeaseIsReportedLostAndTheLockIsFreeForOthers() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle held = a.lock("revoked");
        long lease = keysOf("revoked").get(0).getLease();
        history.hold("a", held, () -> {
            admin.getLeaseClient().revoke(lease).join(); // as etcd does when the lease runs out
            await().atMost(Duration.ofSeconds(10)).until(() -> !held.isHeld());
        });
        assertThat(a.heldLocks()).isEmpty();
        Optional<LockHandle> next = b.tryLock("revoked", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(next).isPresent();
        history.hold("b", next.get(), () -> assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken()));
        next.get().unlock();
        assertThat(history.lostLeases()).isEqualTo(1);
        history.assertConsistent();
        // The instance locks again, on a new shared lease.
        a.lock("revoked-after").unlock();
    }

    @Test
    void closingAStoreRevokesItsSharedLeaseSoItsWaitingKeysGoAtOnce() {
        try (EtcdLockStore holding = startedStore(StoreEvents.NONE)) {
            LockRequest holder = request("closing", Duration.ofSeconds(30), true);
            long token = ((Attempt.Granted) answer(holding.attempt(holder, Waiting.LAST_TRY))).fencingToken();
            EtcdLockStore waiting = startedStore(StoreEvents.NONE);
            assertThat(answer(waiting.attempt(request("closing", Duration.ofSeconds(30), true), Waiting.upTo(Duration.ofMillis(30_000)))))
                    .isInstanceOf(Attempt.Busy.class);
            assertThat(keysOf("closing")).hasSize(2);
            waiting.close(); // nobody cancels the waiter: the revoke of its 30 s lease must take its key
            assertThat(keysOf("closing")).singleElement()
                    .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(token));
            answer(holding.release(new StoreLease(holder, token)));
        }
    }

    @Test
    void lockingOpensNoWatchStreamPerLockOrWait() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        a.lock("streams-warm").unlock();
        b.lock("streams-warm").unlock();
        long before = watchStreams();
        for (int i = 0; i < 50; i++) {
            a.lock("streams-" + i).unlock();
        }
        for (int i = 0; i < 10; i++) { // contended: b waits for a each time
            LockHandle held = a.lock("streams-contended");
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> b.lock("streams-contended",
                    LockOptions.defaults().withWaitTime(Duration.ofSeconds(10))).unlock());
            await().atMost(Duration.ofSeconds(5)).until(() -> keysOf("streams-contended").size() == 2);
            held.unlock();
            waiting.get(10, TimeUnit.SECONDS);
        }
        // jetcd leaves a closed watch's stream open on the server (jetcd #1510): a watch per lock or per wait would
        // leave 70 here.
        assertThat(watchStreams() - before).as("watch streams opened on the server").isLessThanOrEqualTo(2);
    }

    /** @return etcd's gauge of open watch streams */
    private static long watchStreams() throws Exception {
        String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(etcd.endpoint(0) + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith("etcd_debugging_mvcc_watch_stream_total "))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1))).findFirst()
                .orElseThrow(() -> new IllegalStateException("etcd has no watch stream gauge"));
    }

    @Test
    void namesThatArePrefixesOfOneAnotherAreDifferentLocks() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockOptions now = LockOptions.defaults().withWaitTime(Duration.ZERO);
        try (LockHandle plain = a.lock("a"); LockHandle slash = a.lock("a/w"); LockHandle percent = a.lock("a%2Fw")) {
            assertThat(b.tryLock("a", now)).isEmpty();
            assertThat(keysOf("a")).hasSize(1);
            assertThat(new String(keysOf("a/w").get(0).getKey().getBytes(), StandardCharsets.UTF_8))
                    .startsWith(PREFIX + "/a%2Fw/w/");
            assertThat(plain.isHeld() && slash.isHeld() && percent.isHeld()).isTrue();
        }
    }

    private static LockRequest permit(String name, int permits) {
        return new LockRequest(name, LockType.REENTRANT, UUID.randomUUID().toString(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), true, permits);
    }

    @Test
    void aPermitWaiterIsWokenByTheReleaseOfAnyHolderAheadNotOnlyTheOneRightBeforeIt() {
        RecordingEvents events = new RecordingEvents();
        try (EtcdLockStore store = startedStore(events)) {
            LockRequest first = permit("wake-permit", 2);
            LockRequest second = permit("wake-permit", 2);
            LockRequest waiter = permit("wake-permit", 2);
            long firstToken = ((Attempt.Granted) answer(store.attempt(first, Waiting.LAST_TRY))).fencingToken();
            long secondToken = ((Attempt.Granted) answer(store.attempt(second, Waiting.LAST_TRY))).fencingToken();
            assertThat(secondToken).isGreaterThan(firstToken);
            assertThat((answer(store.attempt(waiter, Waiting.upTo(Duration.ofMillis(30_000)))) instanceof Attempt.Granted)).as("a third of two").isFalse();

            // The first holder leaves, not the key right before the waiter's: only the watch can tell the store.
            answer(store.release(new StoreLease(first, firstToken)));
            await().atMost(Duration.ofSeconds(5)).until(() -> events.woken.contains(waiter.ownerToken()));
            Attempt taken = answer(store.attempt(waiter, Waiting.upTo(Duration.ofMillis(30_000))));
            assertThat(taken).isInstanceOf(Attempt.Granted.class);
            assertThat(((Attempt.Granted) taken).fencingToken()).isGreaterThan(secondToken);
            assertThat(keysOf("wake-permit")).extracting(kv -> kv.getKey().toString(StandardCharsets.UTF_8))
                    .allMatch(key -> key.startsWith(PREFIX + "/wake-permit/p2/"));
            answer(store.release(new StoreLease(second, secondToken)));
            answer(store.release(new StoreLease(waiter, ((Attempt.Granted) taken).fencingToken())));
        }
    }

    @Test
    void anAttemptRefusedForItsPermitsLeavesNoKeyInLine() {
        try (EtcdLockStore store = startedStore(StoreEvents.NONE)) {
            LockRequest holder = permit("refused", 3);
            long token = ((Attempt.Granted) answer(store.attempt(holder, Waiting.LAST_TRY))).fencingToken();
            // The engine chains no cancel after a refusal: a key left behind would block the name (and refuse
            // its rightful callers) until its lease ran out.
            for (LockRequest refused : List.of(permit("refused", 2), permit("refused", 30),
                    request("refused", Duration.ofSeconds(30), true))) {
                assertThat(store.attempt(refused, Waiting.upTo(Duration.ofMillis(30_000))).toCompletableFuture())
                        .failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                        .withCauseInstanceOf(LockException.class).withMessageContaining("3 permits");
            }
            assertThat(keysOf("refused")).singleElement()
                    .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(token));
            Attempt second = answer(store.attempt(permit("refused", 3), Waiting.LAST_TRY));
            assertThat((second instanceof Attempt.Granted)).as("the name's own number still gets in").isTrue();
        }
    }

    @Test
    void aKeyOfAnotherNumberThatDoesNotHoldMakesNoRightfulCallerFail() {
        try (EtcdLockStore store = startedStore(StoreEvents.NONE)) {
            long holder = ((Attempt.Granted) answer(store.attempt(permit("wrong-in-line", 2), Waiting.LAST_TRY))).fencingToken();
            // A caller with the wrong number, between its put and its refusal's delete (made by hand: the real one
            // deletes its key within one round trip).
            ByteSequence wrong = ByteSequence.from(PREFIX + "/wrong-in-line/p3/"
                    + EtcdKeys.requestId("wrong caller"), StandardCharsets.UTF_8);
            ByteSequence wrongLock = ByteSequence.from(PREFIX + "/wrong-lock/p2/" + EtcdKeys.requestId("wrong caller"),
                    StandardCharsets.UTF_8);
            admin.getKVClient().put(wrong, ByteSequence.EMPTY).join();
            try {
                Attempt second = answer(store.attempt(permit("wrong-in-line", 2), Waiting.LAST_TRY));
                assertThat((second instanceof Attempt.Granted)).as("the second permit, the wrong key ignored").isTrue();
                assertThat(((Attempt.Granted) second).fencingToken()).isGreaterThan(holder);
                assertThat((answer(store.attempt(permit("wrong-in-line", 2), Waiting.LAST_TRY)) instanceof Attempt.Granted))
                        .as("a third holder of two permits").isFalse();
                assertThat(store.attempt(permit("wrong-in-line", 3), Waiting.upTo(Duration.ofMillis(30_000))).toCompletableFuture())
                        .as("the wrong number itself").failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                        .withCauseInstanceOf(LockException.class).withMessageContaining("2 permits");

                LockRequest first = request("wrong-lock", Duration.ofSeconds(30), true);
                long lockToken = ((Attempt.Granted) answer(store.attempt(first, Waiting.LAST_TRY))).fencingToken();
                admin.getKVClient().put(wrongLock, ByteSequence.EMPTY).join();
                LockRequest next = request("wrong-lock", Duration.ofSeconds(30), true);
                assertThat((answer(store.attempt(next, Waiting.upTo(Duration.ofMillis(30_000)))) instanceof Attempt.Granted)).as("waits behind the holder")
                        .isFalse();
                admin.getKVClient().delete(wrongLock).join(); // as its refused caller does
                answer(store.release(new StoreLease(first, lockToken)));
                Attempt taken = answer(store.attempt(next, Waiting.upTo(Duration.ofMillis(30_000))));
                assertThat((taken instanceof Attempt.Granted)).as("granted after the holder").isTrue();
            }
            finally {
                admin.getKVClient().delete(wrong).join();
                admin.getKVClient().delete(wrongLock).join();
            }
        }
    }

    @Test
    void aForcedReleaseOfANameWithPermitsEndsEveryHolderAndNoWaiter() {
        try (EtcdLockStore store = startedStore(StoreEvents.NONE)) {
            LockRequest first = permit("forced-pool", 2);
            LockRequest second = permit("forced-pool", 2);
            LockRequest waiter = permit("forced-pool", 2);
            answer(store.attempt(first, Waiting.LAST_TRY));
            long secondToken = ((Attempt.Granted) answer(store.attempt(second, Waiting.LAST_TRY))).fencingToken();
            assertThat((answer(store.attempt(waiter, Waiting.upTo(Duration.ofMillis(30_000)))) instanceof Attempt.Granted)).isFalse();

            assertThat(answer(store.forceRelease("forced-pool"))).isTrue();
            assertThat(keysOf("forced-pool")).as("the waiter's key alone").hasSize(1);
            Attempt taken = answer(store.attempt(waiter, Waiting.upTo(Duration.ofMillis(30_000))));
            assertThat(taken).isInstanceOf(Attempt.Granted.class);
            assertThat(((Attempt.Granted) taken).fencingToken()).isGreaterThan(secondToken);
            assertThat((answer(store.attempt(permit("forced-pool", 2), Waiting.LAST_TRY)) instanceof Attempt.Granted))
                    .as("the permit the forced release freed beside the waiter").isTrue();
        }
    }

    /** Records which waiters the store woke. */
    private static final class RecordingEvents implements StoreEvents {

        final ConcurrentLinkedQueue<String> woken = new ConcurrentLinkedQueue<>();

        @Override
        public void released(String name, @Nullable String handedTo) {
            if (handedTo != null) {
                woken.add(handedTo);
            }
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    }

    private static <T> T answer(CompletionStage<T> stage) {
        return stage.toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    /** A lease as the engine hands it to the store. */
    private record StoreLease(LockRequest request, long fencingToken) implements Lease {
    }

}
