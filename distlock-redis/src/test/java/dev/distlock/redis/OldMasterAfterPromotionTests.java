package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A failover while the old master still runs and still reaches one of its two replicas: the Sentinels lost sight of
 * it (on a loaded host, or split from it) or an operator ran {@code SENTINEL FAILOVER}. Here the failover is what
 * the Sentinels do to the promoted replica ({@code REPLICAOF NO ONE}), done by hand so that the window in which the
 * old master is not yet demoted stays open. What docs/how-to/sentinel-cluster-redlock.md says of it:
 * <ul>
 * <li>one acknowledgement of two ({@code min-replicas=1}, what {@code auto} waits for) lets the old master grant a
 * lock the promoted replica never gets, which then grants it again: two holders;</li>
 * <li>waiting for every replica ({@code min-replicas=2}) fails the old master's acquire closed, since the promoted
 * replica no longer acknowledges, and leaves no lock there.</li>
 * </ul>
 */
class OldMasterAfterPromotionTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final LockNodes nodes = new LockNodes();

    private RedisServerProcess oldMaster;

    private RedisServerProcess promoted;

    private StoreLockService onPromoted;

    @BeforeEach
    void failOverWhileTheOldMasterRuns() {
        oldMaster = redisServers.start();
        String[] replicaOf = { "--replicaof", oldMaster.host(), String.valueOf(oldMaster.port()) };
        promoted = redisServers.start(replicaOf);
        redisServers.start(replicaOf); // the replica not yet moved to the promoted one
        await().atMost(Duration.ofSeconds(20)).until(() -> onlineReplicas(oldMaster) == 2);
        promoted.call("REPLICAOF", "NO", "ONE");
        onPromoted = nodes.node(promoted, config(), LockNodes.redisConfig("promotion").withReplication(0,
                Duration.ofSeconds(1)));
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void oneAcknowledgementOfTwoLetsTheOldMasterGrantWhatThePromotedReplicaGrantsAgain() {
        StoreLockService onOldMaster = nodes.node(oldMaster, config(),
                LockNodes.redisConfig("promotion").withReplication(1, Duration.ofSeconds(1)));

        Optional<LockHandle> first = onOldMaster.tryLock("stock", LockOptions.defaults());
        Optional<LockHandle> second = onPromoted.tryLock("stock", LockOptions.defaults());

        assertThat(first).as("granted on the old master, acknowledged by the replica still on it").isPresent();
        assertThat(second).as("granted again on the promoted replica").isPresent();
        assertThat(first.orElseThrow().isHeld() && second.orElseThrow().isHeld()).as("two holders").isTrue();
    }

    @Test
    void everyReplicasAcknowledgementFailsTheOldMastersAcquireClosed() {
        StoreLockService onOldMaster = nodes.node(oldMaster, config(),
                LockNodes.redisConfig("promotion").withReplication(2, Duration.ofMillis(500)));

        assertThatExceptionOfType(LockUnavailableException.class)
                .isThrownBy(() -> onOldMaster.tryLock("stock", LockOptions.defaults()))
                .withMessageContaining("stock");
        // The engine sends the undo once the acquire failed, without waiting for it (StoreCalls.cancel): it goes
        // out behind the failed WAIT on the acquiring connection, so it may land after the exception.
        await("the acquire was undone on the old master").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(keysOf(oldMaster)).noneMatch(key -> key.contains("stock")));
        assertThat(onPromoted.tryLock("stock", LockOptions.defaults())).isPresent();
    }

    private static LockConfig config() {
        return LockConfig.defaults().withWaitTime(Duration.ZERO).withLeaseTime(Duration.ofSeconds(30));
    }

    private static long onlineReplicas(RedisServerProcess master) {
        return String.valueOf(master.call("INFO", "replication")).lines()
                .filter(line -> line.startsWith("slave") && line.contains("state=online")).count();
    }

    private static List<String> keysOf(RedisServerProcess server) {
        return ((List<?>) server.call("KEYS", "*")).stream().map(String::valueOf).toList();
    }
}
