package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock.replication.min-replicas=auto} on a real master with a real replica: when the master that had a
 * replica online lists none (here the replica stops; after a failover, the replicas resyncing to the promoted
 * master), acknowledgement silently turns off. That is said once as a WARN, and its end as an INFO.
 */
class ReplicaLossWarningTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final LockNodes nodes = new LockNodes();

    private final Logger redisLog = (Logger) LoggerFactory.getLogger("dev.distlock.redis");

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @AfterEach
    void close() {
        redisLog.detachAppender(logged);
        nodes.close();
    }

    @Test
    void aMasterWhoseReplicasAreGoneIsReportedOnceAndTheirReturnToo() {
        logged.start();
        redisLog.addAppender(logged);
        RedisServerProcess master = redisServers.start();
        RedisServerProcess replica = redisServers.start("--replicaof", master.host(), String.valueOf(master.port()));
        await().atMost(Duration.ofSeconds(10)).until(() -> online(master));
        // A watchdog lock too, so that both connections of the store (acquires, renewals) ask the master.
        StoreLockService node = nodes.node(nodes.factory(master), LockConfig.defaults()
                .withLeaseTime(Duration.ofMillis(1500)).withWaitTime(Duration.ZERO), LockNodes.redisConfig("replicas"),
                LockListener.NONE);
        LockHandle kept = node.lock("kept");
        lockOnce(node);

        replica.stop();
        // The count is refreshed in the background at most every LettuceNode.REFRESH_MILLIS, when the node is used.
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> lockOnce(node) && !warnings().isEmpty());
        replica.start();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> lockOnce(node) && !backAgain().isEmpty());

        assertThat(warnings()).as("one WARN for the loss, from either connection").singleElement()
                .satisfies(warn -> assertThat(warn.getFormattedMessage()).contains("the Redis master")
                        .contains("distlock.replication.min-replicas=auto"));
        assertThat(backAgain()).singleElement()
                .satisfies(info -> assertThat(info.getLevel()).isEqualTo(Level.INFO));
        kept.unlock();
    }

    /**
     * A failover's new master with no replica online yet (on Cluster a new address, never seen with replicas) is
     * reported at once: it was a replica, so its set had replicas and a second failover would lose what it holds.
     */
    @Test
    void aPromotedMasterWithoutReplicasIsReportedWhenFirstSeen() {
        logged.start();
        redisLog.addAppender(logged);
        RedisServerProcess old = redisServers.start();
        RedisServerProcess promoted = redisServers.start("--replicaof", old.host(), String.valueOf(old.port()));
        await().atMost(Duration.ofSeconds(10)).until(() -> online(old));
        promoted.call("REPLICAOF", "NO", "ONE"); // as a failover does; its old master is no replica of it
        StoreLockService node = nodes.node(nodes.factory(promoted), LockConfig.defaults()
                .withWaitTime(Duration.ZERO), LockNodes.redisConfig("promoted"), LockListener.NONE);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> lockOnce(node) && !warnings().isEmpty());
        assertThat(warnings()).singleElement().satisfies(warn -> assertThat(warn.getFormattedMessage())
                .contains("promoted from a replica"));
    }

    /** A master that never had a replica and never was one is a plain single Redis: nothing to report. */
    @Test
    void aSingleRedisIsNotReported() {
        logged.start();
        redisLog.addAppender(logged);
        RedisServerProcess single = redisServers.start();
        StoreLockService node = nodes.node(nodes.factory(single), LockConfig.defaults()
                .withWaitTime(Duration.ZERO), LockNodes.redisConfig("single"), LockListener.NONE);
        for (int i = 0; i < 5; i++) {
            lockOnce(node);
        }
        assertThat(LettuceNode.promoted(String.valueOf(single.call("INFO", "replication")))).isFalse();
        assertThat(warnings()).isEmpty();
    }

    /** Takes and releases a lock once; a refusal or a failed acknowledgement meanwhile is no concern here. */
    private static boolean lockOnce(StoreLockService node) {
        try {
            Optional<LockHandle> taken = node.tryLock("probe", LockOptions.defaults().withWaitTime(Duration.ZERO));
            taken.ifPresent(LockHandle::unlock);
        }
        catch (LockException ex) {
            // the replica is gone and the count still says one: the WAIT fails, as it should
        }
        return true;
    }

    private List<ILoggingEvent> warnings() {
        return List.copyOf(logged.list).stream().filter(event -> event.getLevel() == Level.WARN
                && event.getFormattedMessage().contains("no replica online")).toList();
    }

    private List<ILoggingEvent> backAgain() {
        return List.copyOf(logged.list).stream()
                .filter(event -> event.getFormattedMessage().contains("online again")).toList();
    }

    private static boolean online(RedisServerProcess master) {
        return String.valueOf(master.call("INFO", "replication")).contains("state=online");
    }
}
