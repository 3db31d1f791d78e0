package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key layout, without etcd: a lock's keys are unchanged by permits, a permit key says its number, and a
 * request's line holds the keys of its own number that may block it and no key of another number or name.
 */
class EtcdKeysTests {

    private final EtcdKeys keys = new EtcdKeys("app/locks");

    private static LockRequest request(String name, LockType type, int permits) {
        return new LockRequest(name, type, UUID.randomUUID().toString(), Duration.ZERO, Duration.ofSeconds(30), true,
                permits);
    }

    private static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** @return whether the key lies in the request's line */
    private boolean inLine(LockRequest request, ByteSequence key) {
        EtcdKeys.KeyRange line = keys.line(request);
        return compare(line.from(), key) <= 0 && compare(key, line.to()) < 0;
    }

    /** etcd's order: unsigned bytes. */
    private static int compare(ByteSequence a, ByteSequence b) {
        return Arrays.compareUnsigned(a.getBytes(), b.getBytes());
    }

    @Test
    void aPermitKeySaysItsNumberAndALocksKeysStayAsTheyWere() {
        LockRequest three = request("pool", LockType.REENTRANT, 3);
        assertThat(text(keys.requestKey(three))).startsWith("app/locks/pool/p3/");
        assertThat(text(keys.requestKey(request("pool", LockType.WRITE, 1)))).startsWith("app/locks/pool/w/");
        assertThat(text(keys.requestKey(request("pool", LockType.READ, 1)))).startsWith("app/locks/pool/r/");
        assertThat(keys.permitsOf("pool", keys.requestKey(three))).isEqualTo(3);
        assertThat(keys.permitsOf("pool", keys.requestKey(request("pool", LockType.READ, 1)))).isEqualTo(1);
        assertThat(keys.isPermit("pool", keys.requestKey(three))).isTrue();
    }

    @Test
    void aRequestsLineHoldsTheKeysOfItsOwnNumberThatMayBlockItAndNoOther() {
        LockRequest three = request("pool", LockType.REENTRANT, 3);
        LockRequest thirty = request("pool", LockType.REENTRANT, 30);
        LockRequest lock = request("pool", LockType.REENTRANT, 1);
        LockRequest reader = request("pool", LockType.READ, 1);
        LockRequest two = request("pool", LockType.REENTRANT, 2);
        assertThat(inLine(three, keys.requestKey(request("pool", LockType.REENTRANT, 3)))).isTrue();
        assertThat(inLine(three, keys.requestKey(thirty))).as("p3 and p30 apart").isFalse();
        assertThat(inLine(thirty, keys.requestKey(three))).isFalse();
        assertThat(inLine(three, keys.requestKey(two))).isFalse();
        assertThat(inLine(three, keys.requestKey(lock))).isFalse();
        assertThat(inLine(three, keys.requestKey(reader))).isFalse();
        assertThat(inLine(lock, keys.requestKey(three))).isFalse();
        assertThat(inLine(lock, keys.requestKey(reader))).as("a writer waits for readers and writers").isTrue();
        assertThat(inLine(lock, keys.requestKey(request("pool", LockType.WRITE, 1)))).isTrue();
        assertThat(inLine(reader, keys.requestKey(lock))).as("a reader waits for writers").isTrue();
        assertThat(inLine(reader, keys.requestKey(request("pool", LockType.READ, 1)))).isFalse();
        assertThat(inLine(reader, keys.requestKey(two))).isFalse();
        // Names that extend the name are other locks.
        assertThat(inLine(three, keys.requestKey(request("pool0", LockType.REENTRANT, 3)))).isFalse();
        assertThat(inLine(three, keys.requestKey(request("pool/p3", LockType.REENTRANT, 3)))).isFalse();
        assertThat(inLine(lock, keys.requestKey(request("pool/w", LockType.REENTRANT, 1)))).isFalse();
        assertThat(inLine(lock, keys.requestKey(request("poolx", LockType.REENTRANT, 1)))).isFalse();
    }

    @Test
    void aKeyNamesItsLocksPrefixEvenUnderAKeyPrefixWithSlashes() {
        assertThat(keys.lockPrefixOf(keys.requestKey(request("a/b", LockType.REENTRANT, 2))))
                .isEqualTo(keys.lockPrefix("a/b"));
        assertThat(keys.lockPrefixOf(ByteSequence.from("other/x/w/1", StandardCharsets.UTF_8))).isNull();
    }
}
