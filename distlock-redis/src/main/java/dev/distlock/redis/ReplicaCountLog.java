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
 * back. A master that never had a replica online is not reported: that is a plain single Redis.
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
     * @param master how log messages name the master
     * @param online the replicas it lists as online now
     */
    void observed(String master, int online) {
        Seen[] before = new Seen[1];
        Seen now = masters.compute(master, (name, last) -> {
            before[0] = last;
            if (online > 0) {
                return Seen.ONLINE;
            }
            return last == null || last == Seen.NEVER ? Seen.NEVER : Seen.GONE;
        });
        if (now == Seen.GONE && before[0] == Seen.ONLINE) {
            log.warn("{} lists no replica online, after it had one: distlock.replication.min-replicas=auto now "
                    + "waits for no acknowledgement, so a lock written now is lost if this master fails before a "
                    + "replica synced it (replicas disconnected, or resyncing after a failover); a number instead of "
                    + "auto makes such writes fail instead", master);
        }
        else if (now == Seen.ONLINE && before[0] == Seen.GONE) {
            log.info("{} lists {} replica(s) online again: distlock.replication.min-replicas=auto waits for one "
                    + "acknowledgement again", master, online);
        }
    }
}
