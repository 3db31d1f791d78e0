package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.StoreEvents;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry's bookkeeping between the watch and the waiters, without a watch: the events are fed by hand, so
 * the orders that are races on a real etcd are played out exactly.
 */
class KeyRegistryTests {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    // Never connects: the registry opens no watch here.
    private final Client client = Client.builder().endpoints("http://127.0.0.1:1").build();

    private final List<String> woken = new CopyOnWriteArrayList<>();

    private final KeyRegistry registry = new KeyRegistry(client.getWatchClient(), new EtcdKeys("p"), scheduler);

    @AfterEach
    void close() {
        registry.close();
        client.close();
        scheduler.shutdownNow();
    }

    private static ByteSequence bytes(String key) {
        return ByteSequence.from(key, StandardCharsets.UTF_8);
    }

    private LockKey waiter(KeyRegistry keys, StoreEvents events, long createRevision) {
        LockRequest request = new LockRequest("lock", LockType.REENTRANT, UUID.randomUUID().toString(),
                Duration.ofSeconds(10), Duration.ofSeconds(30), true);
        LockKey key = new LockKey(request, EtcdKeys.Kind.WRITER, bytes("p/lock/w/" + createRevision), 1, null);
        key.createRevision = createRevision;
        keys.register(key);
        return key;
    }

    private final StoreEvents events = new StoreEvents() {
        @Override
        public void released(String name, @Nullable String handedTo) {
            woken.add(handedTo);
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    };

    @Test
    void aDeletionReportedBeforeTheWaiterRegisteredWakesItAtOnce() {
        KeyRegistry keys = withEvents();
        LockKey waiter = waiter(keys, events, 11);
        keys.deleted(bytes("p/lock/w/10"), 12); // the watch was faster than the attempt's answer
        keys.waitFor(waiter, bytes("p/lock/w/10"), 11);
        assertThat(woken).containsExactly(waiter.owner());
    }

    @Test
    void aDeletionBeforeTheWaitersReadDoesNotWakeIt() {
        KeyRegistry keys = withEvents();
        LockKey waiter = waiter(keys, events, 11);
        keys.deleted(bytes("p/lock/w/10"), 9); // an earlier incarnation of that key, gone before the read
        keys.waitFor(waiter, bytes("p/lock/w/10"), 11);
        assertThat(woken).isEmpty();
        keys.deleted(bytes("p/lock/w/10"), 13);
        assertThat(woken).containsExactly(waiter.owner());
    }

    @Test
    void aDeletionWakesOnlyTheWaitersOfThatKey() {
        KeyRegistry keys = withEvents();
        LockKey second = waiter(keys, events, 11);
        LockKey third = waiter(keys, events, 12);
        keys.waitFor(second, bytes("p/lock/w/10"), 12);
        keys.waitFor(third, second.key, 12);
        keys.deleted(bytes("p/lock/w/10"), 13);
        assertThat(woken).containsExactly(second.owner());
    }

    @Test
    void aDeletionOfAnyKeyOfANameWakesTheWaitersOfTheWholeNameAndNoOtherName() {
        KeyRegistry keys = withEvents();
        LockKey permitWaiter = waiter(keys, events, 11);
        LockKey otherName = waiter(keys, events, 12);
        keys.waitFor(permitWaiter, bytes("p/lock/"), 11);
        keys.waitFor(otherName, bytes("p/lock2/"), 12);
        keys.deleted(bytes("p/lock/p2/5"), 13); // whichever holder ahead leaves
        assertThat(woken).containsExactly(permitWaiter.owner());
    }

    @Test
    void aDeletionOfANameReportedBeforeItsWaiterRegisteredWakesItAtOnce() {
        KeyRegistry keys = withEvents();
        LockKey permitWaiter = waiter(keys, events, 11);
        keys.deleted(bytes("p/lock/p2/5"), 12);
        keys.waitFor(permitWaiter, bytes("p/lock/"), 11);
        assertThat(woken).containsExactly(permitWaiter.owner());
    }

    private KeyRegistry withEvents() {
        registry.reportTo(events); // no watch: these tests play its events by hand
        return registry;
    }
}
