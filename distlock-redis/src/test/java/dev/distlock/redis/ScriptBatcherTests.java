package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockException;
import dev.distlock.LockType;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The acquire and release scripts of one connection sent like a group commit ({@link ScriptBatcher}), on a real
 * Redis. Redis is held with {@code CLIENT PAUSE WRITE}, so that the first call stays in flight while the others are
 * made: what queued behind it then goes out as one call of {@code batch.lua}, whose count Redis' command statistics
 * show.
 */
class ScriptBatcherTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private RedisLockStore store;

    private StringRedisTemplate redis;

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @BeforeEach
    void open() {
        redis = nodes.redis(server);
        store = opened(server, LockNodes.redisConfig("batch").withBatchedScripts());
    }

    /**
     * A store whose connections are open, its scripts loaded: calls made while a connection opens run in no
     * particular order once it is (they wait on the same future), which is not what these tests are about.
     */
    private RedisLockStore opened(RedisServerProcess on, RedisLockConfig config) {
        // Loaded now, so that the counts are EVALSHA calls only (no NOSCRIPT and EVAL on first use).
        StringRedisTemplate template = nodes.redis(on);
        for (LuaScript script : List.of(LuaScript.ACQUIRE, LuaScript.RELEASE, LuaScript.BATCH)) {
            template.execute((RedisCallback<String>) c -> c.scriptingCommands().scriptLoad(script.body()));
        }
        RedisLockStore opened = new RedisLockStore(nodes.factory(on), config);
        LockRequest warmUp = request("warm-up");
        Attempt granted = opened.attempt(warmUp, Waiting.LAST_TRY).toCompletableFuture().join();
        opened.release(new TestLease(warmUp, ((Attempt.Granted) granted).fencingToken())).toCompletableFuture().join();
        return opened;
    }

    @AfterEach
    void close() {
        store.close();
        nodes.close();
    }

    @Test
    void callsQueuedBehindTheOneInFlightGoOutAsOneScriptCall() {
        long before = LockNodes.calls(redis, "evalsha");
        List<CompletableFuture<Attempt>> attempts = new ArrayList<>();
        whilePaused(() -> {
            for (int i = 0; i < 30; i++) {
                attempts.add(attempt("batched-" + i));
            }
        });
        List<Attempt> answers = attempts.stream().map(CompletableFuture::join).toList();
        assertThat(answers).allSatisfy(answer -> assertThat(answer).isInstanceOf(Attempt.Granted.class));
        assertThat(LockNodes.calls(redis, "evalsha") - before)
                .as("the first call alone, then the 29 that queued behind it as one batch").isEqualTo(2);
        for (int i = 0; i < 30; i++) {
            assertThat(redis.opsForValue().get("batch:{batched-" + i + "}"))
                    .endsWith(":" + ((Attempt.Granted) answers.get(i)).fencingToken());
        }
    }

    @Test
    void aBatchHoldsANameOnceSoACancelStillRunsAfterItsAttempt() {
        long before = LockNodes.calls(redis, "evalsha");
        LockRequest taken = request("taken");
        List<CompletableFuture<?>> calls = new ArrayList<>();
        whilePaused(() -> {
            calls.add(attempt("first"));
            calls.add(store.attempt(taken, Waiting.LAST_TRY).toCompletableFuture());
            calls.add(store.cancel(taken).toCompletableFuture()); // same name: the next batch
            calls.add(attempt("other"));
        });
        calls.forEach(CompletableFuture::join);
        assertThat(calls.get(1).join()).isInstanceOf(Attempt.Granted.class);
        assertThat(redis.hasKey("batch:{taken}")).as("the cancel ran after the attempt it undoes").isFalse();
        assertThat(redis.hasKey("batch:{other}")).isTrue();
        assertThat(LockNodes.calls(redis, "evalsha") - before)
                .as("'first' alone, the attempt on 'taken', then its cancel with 'other'").isEqualTo(3);
    }

    @Test
    void aScriptErrorFailsItsOwnCallOnly() {
        assertThat(attempt("held").join()).isInstanceOf(Attempt.Granted.class);
        LockRequest permits = new LockRequest("held", LockType.REENTRANT, UUID.randomUUID().toString(),
                Duration.ZERO, Duration.ofSeconds(30), false, 3);
        redis.opsForHash().put("batch:{not-a-lock}", "field", "value"); // a key the script's GET fails on
        List<CompletableFuture<Attempt>> calls = new ArrayList<>();
        whilePaused(() -> {
            calls.add(attempt("alone"));
            calls.add(store.attempt(permits, Waiting.LAST_TRY).toCompletableFuture()); // an error reply
            calls.add(attempt("beside"));
            calls.add(attempt("not-a-lock")); // an error raised by redis.call
            calls.add(attempt("after"));
        });
        assertThatThrownBy(calls.get(1)::join).hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("with 1 permit");
        assertThatThrownBy(calls.get(3)::join).hasMessageContaining("WRONGTYPE");
        assertThat(List.of(calls.get(0).join(), calls.get(2).join(), calls.get(4).join()))
                .as("in the same batch as the failing calls")
                .allSatisfy(answer -> assertThat(answer).isInstanceOf(Attempt.Granted.class));
    }

    @Test
    void aReleaseAndAnAttemptShareABatch() {
        store.close(); // without replica acknowledgement, whose acquires have a connection of their own
        store = opened(server,
                LockNodes.redisConfig("batch").withBatchedScripts().withReplication(0, Duration.ofSeconds(1)));
        LockRequest held = request("released");
        long token = ((Attempt.Granted) store.attempt(held, Waiting.LAST_TRY).toCompletableFuture().join())
                .fencingToken();
        long before = LockNodes.calls(redis, "evalsha");
        List<CompletableFuture<?>> calls = new ArrayList<>();
        whilePaused(() -> {
            calls.add(attempt("ahead"));
            calls.add(store.release(new TestLease(held, token)).toCompletableFuture());
            calls.add(attempt("behind"));
        });
        calls.forEach(CompletableFuture::join);
        assertThat(calls.get(1).join()).isEqualTo(ReleaseResult.RELEASED);
        assertThat(redis.hasKey("batch:{released}")).isFalse();
        assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(2);
    }

    @Test
    void withoutBatchedScriptsEveryCallIsAScriptCallOfItsOwn() {
        store.close();
        store = opened(server, LockNodes.redisConfig("batch"));
        long before = LockNodes.calls(redis, "evalsha");
        List<CompletableFuture<Attempt>> attempts = new ArrayList<>();
        whilePaused(() -> {
            for (int i = 0; i < 10; i++) {
                attempts.add(attempt("alone-" + i));
            }
        });
        assertThat(attempts.stream().map(CompletableFuture::join)).allSatisfy(
                answer -> assertThat(answer).isInstanceOf(Attempt.Granted.class));
        assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(10);
    }

    @Test
    void onAMasterWithAReplicaOneWaitBehindTheBatchCoversItsWrites() {
        RedisServerProcess master = redisServers.start();
        RedisServerProcess replica = redisServers.start("--replicaof", master.host(), String.valueOf(master.port()));
        await().atMost(Duration.ofSeconds(10)).until(() -> String.valueOf(master.call("INFO", "replication"))
                .contains("state=online"));
        store.close();
        store = opened(master, LockNodes.redisConfig("batch").withBatchedScripts()); // min-replicas=auto: 1 here
        StringRedisTemplate onMaster = nodes.redis(master);
        long scripts = LockNodes.calls(onMaster, "evalsha");
        long waits = LockNodes.calls(onMaster, "wait");
        List<CompletableFuture<Attempt>> attempts = new ArrayList<>();
        whilePaused(master, () -> {
            for (int i = 0; i < 20; i++) {
                attempts.add(attempt("acknowledged-" + i));
            }
        });
        assertThat(attempts.stream().map(CompletableFuture::join)).allSatisfy(
                answer -> assertThat(answer).isInstanceOf(Attempt.Granted.class));
        assertThat(LockNodes.calls(onMaster, "evalsha") - scripts).isEqualTo(2);
        // The first call went out alone, before its WAIT was made; that WAIT queued with the others behind it, and
        // one WAIT behind the batch covers all 20 writes.
        assertThat(LockNodes.calls(onMaster, "wait") - waits).as("one WAIT for all").isEqualTo(1);
        StringRedisTemplate onReplica = nodes.redis(replica);
        assertThat(onReplica.hasKey("batch:{acknowledged-19}")).as("acknowledged: on the replica").isTrue();
    }

    private CompletableFuture<Attempt> attempt(String name) {
        return store.attempt(request(name), Waiting.LAST_TRY).toCompletableFuture();
    }

    private static LockRequest request(String name) {
        return new LockRequest(name, LockType.REENTRANT, UUID.randomUUID().toString(), Duration.ZERO,
                Duration.ofSeconds(30), false);
    }


    /** Makes the calls while Redis holds every write: the first is then in flight until the pause ends. */
    private static void whilePaused(Runnable calls) {
        whilePaused(server, calls);
    }

    private static void whilePaused(RedisServerProcess on, Runnable calls) {
        on.call("CLIENT", "PAUSE", "1000", "WRITE");
        try {
            calls.run();
        }
        finally {
            on.call("CLIENT", "UNPAUSE");
        }
    }
}
