package dev.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says when {@code distlock.replication.min-replicas=auto} stops waiting for replicas because a master that had a
 * replica online lists none (all disconnected, or resyncing to a master promoted by a failover: exactly when a
 * second failover would lose unacknowledged locks), and when it waits again. One per store, shared by its
 * connections, so that each master's change is logged once: a WARN when its replicas are gone, an INFO when one is
 * back. A master promoted from a replica counts as one that had a replica, also when first seen: on Cluster a
 * failover's new master is a new address. A master that never had a replica online and was never one is not
 * reported: that is a plain single Redis. And, once per store, when the client cannot wait for replicas at all.
 */
final class ReplicaCountLog {

    private static final Logger log = LoggerFactory.getLogger(ReplicaCountLog.class);

    /** What was last seen of a master's replicas. */
    private enum Seen {

        /** None online, and none seen online before. */
        NEVER,

        /** At least one online. */
        ONLINE,

        /** None online after some were (WARN logged). */
        GONE
    }

    private final ConcurrentMap<String, Seen> masters = new ConcurrentHashMap<>();

    /**
     * Fails, or warns for {@code auto}, when replicas must acknowledge lock writes on a client that cannot wait for
     * them: {@code WAIT} must follow the write on the same connection, which only Lettuce promises.
     *
     * @param minReplicas {@code distlock.replication.min-replicas}
     * @param lettuce whether the connection factory is Lettuce's
     * @param client how messages name the connection factory
     */
    static void checkClient(MinReplicas minReplicas, boolean lettuce, String client) {
        if (!lettuce && !minReplicas.isOff()) {
            if (!minReplicas.auto()) {
                throw new IllegalStateException("distlock.replication.min-replicas=" + minReplicas
                        + " needs the Lettuce client: WAIT must follow the lock write on the same connection, which "
                        + "a pooled client does not promise; use Lettuce or set it to 0");
            }
            log.warn("distlock.replication.min-replicas=auto waits for no replica acknowledgement on this Redis "
                    + "client ({}): WAIT must follow the lock write on the same connection, which only the Lettuce "
                    + "client promises. A lock written just before a failover can be lost (and is reported); use "
                    + "Lettuce for acknowledged locks, or set the property to 0 to silence this warning",
                    client);
        }
    }

    /**
     * @param master how log messages name the master
     * @param online the replicas it lists as online now
     * @param promoted whether it was promoted from a replica ({@code INFO replication}'s {@code second_repl_offset})
     */
    void observed(String master, int online, boolean promoted) {
        Seen[] before = new Seen[1];
        Seen now = masters.compute(master, (name, last) -> {
            before[0] = last;
            if (online > 0) {
                return Seen.ONLINE;
            }
            return (last == null || last == Seen.NEVER) && !promoted ? Seen.NEVER : Seen.GONE;
        });
        if (now == Seen.GONE && before[0] != Seen.GONE) {
            log.warn("{} lists no replica online, after it had one or was promoted from a replica: distlock."
                    + "replication.min-replicas=auto now waits for no acknowledgement, so a lock written now is lost "
                    + "if this master fails before a replica synced it (replicas disconnected, or resyncing after a "
                    + "failover); a number instead of auto makes such writes fail instead", master);
        }
        else if (now == Seen.ONLINE && before[0] == Seen.GONE) {
            log.info("{} lists {} replica(s) online again: distlock.replication.min-replicas=auto waits for one "
                    + "acknowledgement again", master, online);
        }
    }
}
