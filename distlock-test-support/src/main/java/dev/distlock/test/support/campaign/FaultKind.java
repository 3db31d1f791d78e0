package dev.distlock.test.support.campaign;

/** The faults the nemesis injects, each bounded in time and healed before the next. */
public enum FaultKind {
    /** A store process killed with SIGKILL and started again (from its AOF, WAL or snapshot, where it has one). */
    KILL_SERVER,
    /** A store process frozen with SIGSTOP, then thawed with SIGCONT. */
    PAUSE_SERVER,
    /** A store process stopped cleanly and started again. */
    RESTART_SERVER,
    /** The master killed so that Sentinel or the Cluster promotes a replica; the old master comes back a replica. */
    FAILOVER,
    /**
     * One node cut off from a master, which is then killed and failed over while the node stays cut off from it (a
     * shard's failover under partition, on Cluster).
     */
    FAILOVER_UNDER_PARTITION,
    /** A blackhole between a node and some servers, or around a server (replication links included). */
    PARTITION,
    /**
     * Review §6: {old master + one node} | {replicas + Sentinels + the other nodes}; the majority side's connections
     * to the old master are reset.
     */
    PARTITION_MASTER_WITH_NODE,
    /** Every chunk of bytes held on some links. */
    DELAY,
    /** Open connections reset and new ones refused on some links. */
    RESET,
    /** A holder JVM killed with SIGKILL (and a new one started). */
    KILL_HOLDER,
    /** A holder JVM frozen with SIGSTOP, then thawed. */
    PAUSE_HOLDER,
    /** A store process's wall clock stepped (libfaketime, see {@link ClockFaults}); it stays where it was stepped. */
    CLOCK_STEP,
    /** A store process's wall clock run at another rate (libfaketime, see {@link ClockFaults}), then steady again. */
    CLOCK_DRIFT
}
