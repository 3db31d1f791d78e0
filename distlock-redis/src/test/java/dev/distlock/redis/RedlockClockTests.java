package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.campaign.FakedClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Redlock's fencing tokens increase from one holder to the next although the masters' clocks disagree by far more
 * than the time between them, and the next majority lacks the master whose clock is ahead: each master kept the
 * released token (release.lua). The fault campaign found the opposite after an hour of clock drift (masters 48 ms
 * apart, holders 12 to 20 ms apart). Here one master of three runs 10 s ahead (libfaketime; without it the test is
 * skipped, saying so) and a frozen master decides which majority grants. A Redlock of stores that would not keep
 * released tokens is refused.
 */
class RedlockClockTests {

    private static final long AHEAD_MICROS = 10_000_000;

    private final List<RedisServerProcess> masters = new ArrayList<>();

    private Optional<FakedClock> clock = Optional.empty();

    private StoreLockService node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
        masters.forEach(RedisServerProcess::kill);
        clock.ifPresent(FakedClock::close);
    }

    @Test
    void aMajorityWithoutTheMasterAheadIssuesAHigherToken() {
        clock = FakedClock.create("redlock master ahead", RedisServerBinary.path());
        assumeTrue(clock.isPresent(), "SKIPPED: libfaketime is not installed (Debian's faketime), or the Redis "
                + "binary does not run under it, so no master's clock can be put ahead");
        clock.get().step(AHEAD_MICROS);
        RedisServerProcess.Builder ahead = RedisServerProcess.builder();
        clock.get().environment().forEach(ahead::environment);
        masters.add(ahead.start());
        masters.add(RedisServerProcess.builder().start());
        masters.add(RedisServerProcess.builder().start());
        node = new StoreLockService(RedlockStore.connect(new RedlockConfig(masters.stream()
                .map(master -> "redis://" + master.host() + ":" + master.port()).toList(), "clock",
                Duration.ofMillis(500))), LockConfig.defaults().withLeaseTime(Duration.ofSeconds(2)),
                LockListener.NONE);
        node.start();
        LockOptions wait = LockOptions.defaults().withWaitTime(Duration.ofSeconds(10));

        masters.get(2).pause(); // the majority is {ahead, 1}: the token is the clock that is ahead
        long first;
        try (LockHandle handle = node.tryLock("floor", wait).orElseThrow()) {
            first = handle.fencingToken();
        }
        assertThat(first).as("issued by the master ahead").isGreaterThan(serverMicros(masters.get(1))
                + AHEAD_MICROS / 2);

        masters.get(2).resume();
        masters.get(0).pause(); // the majority is {1, 2}, both 10 s behind that token
        try (LockHandle handle = node.tryLock("floor", wait).orElseThrow()) {
            assertThat(handle.fencingToken()).as("the next holder's token").isGreaterThan(first);
        }
        finally {
            masters.get(0).resume();
        }
    }

    @Test
    void aRedlockOfStoresThatDoNotKeepReleasedTokensIsRefused() {
        List<String> uris = List.of("redis://127.0.0.1:1", "redis://127.0.0.1:2", "redis://127.0.0.1:3");
        LettuceConnectionFactory factory = new LettuceConnectionFactory("127.0.0.1", 1);
        List<RedisLockStore> plain = uris.stream().map(uri -> new RedisLockStore(factory, RedisLockConfig.defaults()
                .withReplication(0, Duration.ofSeconds(1)))).toList();
        assertThatIllegalArgumentException().isThrownBy(() -> new RedlockStore(new RedlockConfig(uris, "clock",
                Duration.ofMillis(500)), plain)).withMessageContaining("asRedlockMaster");
    }

    private static long serverMicros(RedisServerProcess server) {
        @SuppressWarnings("unchecked")
        List<Object> time = (List<Object>) server.call("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(time.get(1)));
    }
}
