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
 * The key layout, without etcd: a lock's keys are unchanged by permits, a permit key says its number, and the
 * ranges of other numbers of permits hold every key of another number of the name and no key of its own.
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

    /** @return whether the key lies in one of the ranges of another number of permits than the request's */
    private boolean ofOtherPermits(LockRequest request, ByteSequence key) {
        return keys.otherPermitsRanges(request).stream()
                .anyMatch(range -> compare(range.from(), key) <= 0 && compare(key, range.to()) < 0);
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
    void theRangesOfOtherPermitsHoldEveryOtherNumberOfTheNameAndNothingElse() {
        LockRequest three = request("pool", LockType.REENTRANT, 3);
        LockRequest thirty = request("pool", LockType.REENTRANT, 30);
        LockRequest lock = request("pool", LockType.REENTRANT, 1);
        LockRequest reader = request("pool", LockType.READ, 1);
        LockRequest two = request("pool", LockType.REENTRANT, 2);
        assertThat(ofOtherPermits(three, keys.requestKey(request("pool", LockType.REENTRANT, 3)))).isFalse();
        assertThat(ofOtherPermits(three, keys.requestKey(thirty))).as("p3 and p30 apart").isTrue();
        assertThat(ofOtherPermits(thirty, keys.requestKey(three))).isTrue();
        assertThat(ofOtherPermits(three, keys.requestKey(two))).isTrue();
        assertThat(ofOtherPermits(three, keys.requestKey(lock))).isTrue();
        assertThat(ofOtherPermits(three, keys.requestKey(reader))).isTrue();
        assertThat(ofOtherPermits(lock, keys.requestKey(three))).isTrue();
        assertThat(ofOtherPermits(lock, keys.requestKey(reader))).as("readers and writers: one permit").isFalse();
        assertThat(ofOtherPermits(reader, keys.requestKey(lock))).isFalse();
        // Names that extend the name are other locks.
        assertThat(ofOtherPermits(three, keys.requestKey(request("pool0", LockType.REENTRANT, 1)))).isFalse();
        assertThat(ofOtherPermits(three, keys.requestKey(request("pool/p3", LockType.REENTRANT, 2)))).isFalse();
        assertThat(ofOtherPermits(lock, keys.requestKey(request("pool/p", LockType.REENTRANT, 1)))).isFalse();
    }

    @Test
    void aKeyNamesItsLocksPrefixEvenUnderAKeyPrefixWithSlashes() {
        assertThat(keys.lockPrefixOf(keys.requestKey(request("a/b", LockType.REENTRANT, 2))))
                .isEqualTo(keys.lockPrefix("a/b"));
        assertThat(keys.lockPrefixOf(ByteSequence.from("other/x/w/1", StandardCharsets.UTF_8))).isNull();
    }
}
