package dev.distlock.embedded;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * Proves the harness: real servers that Spring Data Redis (Lettuce) can talk to, and that can be paused,
 * resumed, killed and restarted on the same port.
 */
class RedisServerProcessTests {

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    private final java.util.List<LettuceConnectionFactory> factories = new java.util.ArrayList<>();

    @AfterEach
    void closeClients() {
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void twoServersPausedResumedKilledAndRestarted() {
        RedisServerProcess first = redis.start();
        RedisServerProcess second = redis.start();
        assertThat(first.port()).isNotEqualTo(second.port());

        StringRedisTemplate one = template(first);
        StringRedisTemplate two = template(second);
        one.opsForValue().set("k", "one");
        two.opsForValue().set("k", "two");
        assertThat(one.opsForValue().get("k")).isEqualTo("one");
        assertThat(two.opsForValue().get("k")).isEqualTo("two");

        first.pause();
        assertThatThrownBy(() -> one.opsForValue().get("k"))
                .hasRootCauseInstanceOf(RedisCommandTimeoutException.class);
        assertThat(two.opsForValue().get("k")).as("the other server is unaffected").isEqualTo("two");
        first.resume();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(one.opsForValue().get("k")).isEqualTo("one"));

        long pidBefore = second.pid();
        second.kill();
        assertThat(second.isRunning()).isFalse();
        assertThat(LoopbackPorts.isListening(second.port())).isFalse();
        assertThatThrownBy(() -> two.opsForValue().get("k")).isInstanceOfAny(RedisConnectionFailureException.class,
                org.springframework.dao.QueryTimeoutException.class);

        second.start();
        assertThat(second.pid()).isNotEqualTo(pidBefore);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            two.opsForValue().set("k", "again");
            assertThat(two.opsForValue().get("k")).isEqualTo("again");
        });
    }

    /**
     * A freeze whose threads do not all stop in time (here a thread that the states read say is always running) is
     * undone before it fails: the process runs on, and the caller, told the fault was not injected, never thaws it.
     */
    @Test
    void aFreezeThatTimesOutLeavesTheProcessRunning(@org.junit.jupiter.api.io.TempDir Path fakeTasks)
            throws Exception {
        Path stat = Path.of("/proc", "self", "stat");
        assumeTrue(Files.exists(stat), "SKIPPED: no /proc on this machine to read process states from");
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            Files.createDirectories(fakeTasks.resolve("1"));
            Files.writeString(fakeTasks.resolve("1").resolve("stat"), "1 (a thread) R 0");
            assertThatThrownBy(() -> ProcessSignals.freeze(sleeper.pid(), fakeTasks, Duration.ofMillis(200)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("to stop");
            await("the process thawed").atMost(Duration.ofSeconds(5))
                    .until(() -> !ProcessSignals.state(sleeper.pid()).equals("T"));
            assertThat(ProcessSignals.runningThreads(Path.of("/proc", Long.toString(sleeper.pid()), "task")))
                    .as("threads of the process after the failed freeze").isNotEmpty();
        }
        finally {
            sleeper.destroyForcibly();
        }
    }

    /**
     * A frozen server answers nothing: {@code kill -STOP} stops one thread at first, and the others only once that
     * one has been scheduled, so {@code pause()} waits for all of them. Redis with I/O threads has several.
     */
    @Test
    void pauseReturnsOnceEveryThreadOfTheServerIsStopped() throws Exception {
        RedisServerProcess server = redis.start("--io-threads", "4", "--io-threads-do-reads", "yes");
        Path tasks = Path.of("/proc", Long.toString(server.pid()), "task");
        assumeTrue(Files.isDirectory(tasks), "SKIPPED: no /proc on this machine to read thread states from");
        try (Stream<Path> threads = Files.list(tasks)) {
            assertThat(threads.count()).as("threads of redis-server").isGreaterThan(4);
        }
        for (int round = 0; round < 20; round++) {
            server.pause();
            assertThat(ProcessSignals.runningThreads(tasks)).as("threads still running after pause()").isEmpty();
            server.resume();
            assertThat(server.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void passesExtraArguments() {
        RedisServerProcess server = redis.start("--requirepass", "s3cret");
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(server.host(), server.port());
        config.setPassword("s3cret");
        assertThat(template(config).opsForValue().setIfAbsent("a", "b")).isTrue();
        // Asked on a plain RESP connection: Lettuce on Redis 7 sometimes reports the refused handshake as a closed
        // channel ("RedisHandshakeHandler not registered") instead of the server's NOAUTH reply.
        assertThatThrownBy(() -> server.call("GET", "a")).isInstanceOf(RespErrorException.class)
                .hasMessageContaining("NOAUTH");
    }

    private StringRedisTemplate template(RedisServerProcess server) {
        return template(new RedisStandaloneConfiguration(server.host(), server.port()));
    }

    private StringRedisTemplate template(RedisStandaloneConfiguration config) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(config,
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return new StringRedisTemplate(factory);
    }
}
