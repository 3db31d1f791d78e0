package dev.distlock.memory;

import dev.distlock.spi.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.LockType;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the engine-level tests cannot see of the in-memory store: repeated attempts and who is told of a release.
 */
class InMemoryLockStoreTests {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private static LockRequest request(String owner, LockType type) {
        return new LockRequest("doc", type, owner, Duration.ZERO, Duration.ofSeconds(30), true);
    }

    private static Lease lease(LockRequest request, long token) {
        return new Lease() {
            @Override
            public LockRequest request() {
                return request;
            }

            @Override
            public long fencingToken() {
                return token;
            }
        };
    }

    @Test
    void aRepeatedAttemptOfAHolderGetsItsOwnTokenAgain() {
        LockRequest writer = request("w", LockType.WRITE);
        long token = ((Attempt.Granted) store.attempt(writer, Waiting.LAST_TRY).toCompletableFuture().join()).fencingToken();
        assertThat(((Attempt.Granted) store.attempt(writer, Waiting.LAST_TRY).toCompletableFuture().join()).fencingToken()).isEqualTo(token);
        store.release(lease(writer, token)).toCompletableFuture().join();

        LockRequest reader = request("r", LockType.READ);
        long readToken = ((Attempt.Granted) store.attempt(reader, Waiting.LAST_TRY).toCompletableFuture().join()).fencingToken();
        Attempt again = store.attempt(reader, Waiting.LAST_TRY).toCompletableFuture().join();
        assertThat(again).isInstanceOf(Attempt.Granted.class);
        assertThat(((Attempt.Granted) again).fencingToken()).isEqualTo(readToken).isGreaterThan(token);
    }

    @Test
    void aReleaseIsAnnouncedToEveryConnectedNodeUntilItCloses() {
        Recorded first = new Recorded();
        Recorded second = new Recorded();
        LockStore one = store.connect();
        LockStore two = store.connect();
        one.start(first);
        two.start(second);
        LockRequest request = request("a", LockType.REENTRANT);
        one.release(lease(request, ((Attempt.Granted) one.attempt(request, Waiting.LAST_TRY).toCompletableFuture().join()).fencingToken()));
        assertThat(first.released).containsExactly("doc");
        assertThat(second.released).containsExactly("doc");

        long held = ((Attempt.Granted) one.attempt(request, Waiting.LAST_TRY).toCompletableFuture().join()).fencingToken();
        one.close();
        assertThat(store.isLocked("doc")).as("closing a connection releases nothing").isTrue();
        two.release(lease(request, held)).toCompletableFuture().join();
        assertThat(first.released).as("closed").containsExactly("doc");
        assertThat(second.released).containsExactly("doc", "doc");
    }

    /** Records the releases it is told of. */
    private static final class Recorded implements StoreEvents {

        final List<String> released = new CopyOnWriteArrayList<>();

        @Override
        public void released(String name, @Nullable String next) {
            released.add(name);
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    }
}
