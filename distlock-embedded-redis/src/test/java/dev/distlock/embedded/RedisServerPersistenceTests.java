package dev.distlock.embedded;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A server killed with SIGKILL and started again on the same port and directory comes back with what it had
 * persisted: the last SAVE (RDB), or every acknowledged write (AOF). This is what restart-from-an-older-snapshot
 * tests of the library build on.
 */
class RedisServerPersistenceTests {

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    @Test
    void restartAfterKillLoadsTheOlderSnapshot() {
        RedisServerProcess server = redis.start();
        int port = server.port();
        server.call("SET", "k", "1");
        assertThat(server.call("SAVE")).isEqualTo("OK");
        server.call("SET", "k", "2");

        server.kill();
        server.start();

        assertThat(server.port()).isEqualTo(port);
        assertThat(server.call("GET", "k")).as("the value of the last SAVE, not the last write").isEqualTo("1");
    }

    @Test
    void restartWithoutSaveStartsEmpty() {
        RedisServerProcess server = redis.start();
        server.call("SET", "k", "1");

        server.restart(); // graceful: with --save "" nothing is written on the way down

        assertThat(server.call("GET", "k")).isNull();
    }

    @Test
    void appendOnlyServerKeepsEveryAcknowledgedWriteAcrossAKill() {
        RedisServerProcess server = redis.start(RedisServerProcess.builder().appendOnly());
        assertThat(Replies.info(server.call("INFO", "persistence"))).containsEntry("aof_enabled", "1");
        server.call("SET", "k", "1");
        server.call("SAVE");
        server.call("SET", "k", "2");
        server.call("INCR", "counter");

        server.kill();
        server.start();

        assertThat(server.call("GET", "k")).isEqualTo("2");
        assertThat(server.call("GET", "counter")).isEqualTo("1");
    }

    @Test
    void appendOnlyFileIsRewrittenOnceItGrewByAMegabyteSoThatARestartReadsLittle() {
        RedisServerProcess server = redis.start(RedisServerProcess.builder().appendOnly());
        String value = "v".repeat(1000);
        for (int i = 0; i < 1500; i++) { // 1.5 MB of history for one key
            server.call("SET", "k", value);
        }

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            var persistence = Replies.info(server.call("INFO", "persistence"));
            assertThat(persistence).containsEntry("aof_rewrite_in_progress", "0");
            assertThat(Long.parseLong(persistence.get("aof_current_size"))).as("1.5 MB written").isLessThan(1_200_000);
        });
        server.kill();
        server.start();
        assertThat(server.call("GET", "k")).isEqualTo(value);
    }

    @Test
    void appendOnlyFileIsRewrittenAtEveryStartSinceRedisJudgesGrowthFromTheSizeItLoaded() {
        // Redis's own rewrites off, as they are in effect for a server restarted before its file doubled.
        RedisServerProcess server = redis.start(RedisServerProcess.builder().appendOnly()
                .args("--auto-aof-rewrite-percentage", "0"));
        String value = "v".repeat(1000);
        for (int i = 0; i < 1500; i++) { // 1.5 MB of history for one key
            server.call("SET", "k", value);
        }
        assertThat(aofSize(server)).as("before the restart").isGreaterThan(1_400_000);

        server.kill();
        server.start();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(aofSize(server))
                .as("after the restart").isLessThan(100_000));
        assertThat(server.call("GET", "k")).isEqualTo(value);
    }

    private static long aofSize(RedisServerProcess server) {
        var persistence = Replies.info(server.call("INFO", "persistence"));
        assertThat(persistence).containsEntry("aof_rewrite_in_progress", "0");
        return Long.parseLong(persistence.get("aof_current_size"));
    }
}
