package dev.distlock.benchmarks;

import java.util.List;

/** Section S of the report: distlock's engine on each store, uncontended and on a hot key. */
final class StoreReport {

    private final Settings settings;

    private final List<StoreUnderTest> stores;

    private final List<String> skippedStores;

    private final ReportCells cells;

    StoreReport(Settings settings, List<StoreUnderTest> stores, List<String> skippedStores, ReportCells cells) {
        this.settings = settings;
        this.stores = stores;
        this.skippedStores = skippedStores;
        this.cells = cells;
    }

    void render() {
        if (!settings.workloads().contains("S") || stores.isEmpty() && skippedStores.isEmpty()) {
            return;
        }
        cells.line("## S. distlock on each store");
        cells.line("");
        cells.line("The same engine (`StoreLockService`, library defaults, `waitTime` 30 s) on each store, one store after "
                + "the other (the order rotates every repeat), every node with connections of its own. A is workload "
                + "A on the store: one node, N threads, lock + unlock of a new name every cycle, latency per cycle. "
                + "The hot key: " + StoreWorkloads.HOT_NODES + " nodes (lock services with stores of their own, in "
                + "the harness's JVM) × " + StoreWorkloads.HOT_THREADS + " threads lock one name in a loop and spin "
                + StoreWorkloads.HOT_WORK.toNanos() / 1000 + " µs inside; counted after the warm-up. Owner changes "
                + "are grants to another thread than the previous grant, node changes to another node; node shares "
                + "are each node's part of the grants, largest first. ÷ Redis is the ratio to " + Stores.REDIS
                + " in this run.");
        cells.line("");
        if (!stores.isEmpty()) {
            cells.line("| store | setup |");
            cells.line("|---|---|");
            for (StoreUnderTest store : stores) {
                cells.line("| " + store.name() + " | " + store.setup() + " |");
            }
            cells.line("");
        }
        for (String skipped : skippedStores) {
            cells.line("**Skipped** (asked for, not measured) " + skipped + ".");
            cells.line("");
        }
        for (int threads : List.of(1, 8)) {
            String m = StoreWorkloads.uncontended(threads);
            cells.line("### S A" + threads + ": uncontended lock + unlock, " + threads
                    + (threads == 1 ? " thread" : " threads"));
            cells.line("");
            cells.line("| store | cycles/s | ÷ Redis | p50 µs | p99 µs | p99.9 µs | failed cycles |");
            cells.line("|---|---|---|---|---|---|---|");
            for (StoreUnderTest store : stores) {
                if (cells.results().has(m, store.name(), "cycles/s")) {
                    cells.line("| " + store.name() + " | " + cells.cell(m, store.name(), "cycles/s") + " | "
                            + cells.ratioCell(m, store.name(), Stores.REDIS, "cycles/s") + " | "
                            + cells.cell(m, store.name(), "p50") + " | " + cells.cell(m, store.name(), "p99") + " | "
                            + cells.cell(m, store.name(), "p99.9") + " | "
                            + cells.cell(m, store.name(), "errors") + " |");
                }
            }
            cells.line("");
        }
        String hot = StoreWorkloads.HOT;
        cells.line("### S hot key: " + StoreWorkloads.HOT_NODES + " nodes × " + StoreWorkloads.HOT_THREADS + " threads, "
                + StoreWorkloads.HOT_WORK.toNanos() / 1000 + " µs inside");
        cells.line("");
        cells.line("| store | grants/s | ÷ Redis | owner changes/s | node changes/s | wait p50 ms | wait p99 ms | "
                + "node shares % | violations | failed calls |");
        cells.line("|---|---|---|---|---|---|---|---|---|---|");
        for (StoreUnderTest store : stores) {
            if (cells.results().has(hot, store.name(), "grants/s")) {
                cells.line("| " + cells.named(hot, store.name()) + " | " + cells.cell(hot, store.name(), "grants/s") + " | "
                        + cells.ratioCell(hot, store.name(), Stores.REDIS, "grants/s") + " | "
                        + cells.cell(hot, store.name(), "owner changes/s") + " | " + cells.cell(hot, store.name(), "node changes/s")
                        + " | " + cells.cell(hot, store.name(), "wait p50") + " | " + cells.cell(hot, store.name(), "wait p99")
                        + " | " + cells.shares(hot, store.name(), StoreWorkloads.HOT_NODES) + " | "
                        + cells.cell(hot, store.name(), "violations") + " | " + cells.cell(hot, store.name(), "errors") + " |");
            }
        }
        cells.line("");
        cells.line("How to read S:");
        cells.line("");
        cells.line("- Every store shares the two cores with the harness. Redis, Redlock's masters, PostgreSQL, MariaDB and "
                + "etcd's members are processes of their own; the H2 and ZooKeeper servers run inside the harness's JVM (its "
                + "CPU and garbage collector), as their tests run them.");
        cells.line("- `min-replicas=auto` (the default) on a master with a replica, as `1`: every acquire sends "
                + "`WAIT 1 <timeout>` right behind the lock script on the same "
                + "connection (pipelined, no extra client round trip), and the master answers it once the replica "
                + "has acknowledged the write: the acquire waits one more master → replica → master round trip, "
                + "and acquires use a connection of their own. Releases do not wait; each renewal batch gets one "
                + "`WAIT` too. On the standalone master (no replica) `auto` sends no `WAIT`.");
        cells.line("- Redlock: each acquire and each release is sent to all 3 masters at once (3 requests in parallel on "
                + "3 connections) and returns with the majority's replies, so a cycle costs the slowest of two "
                + "answers plus three times the Redis work and client work. Waiters are not queued on the masters: "
                + "a busy lock is retried after a random 20–120 ms.");
        cells.line("- Hot key: inside a node only one thread per name asks the store, the others queue in the JVM. On "
                + "Redis and Redlock (fencing tokens that follow the clock) a node passes a held lock straight to "
                + "its next waiting thread, up to `distlock.local-hand-off.max-count` = 100 times or `max-time` = "
                + "5 ms in a row, then releases it to the store: most grants are hand-offs inside a node (node "
                + "changes ≪ grants). Redlock's and JDBC's waiters on other nodes poll (Redlock 20–120 ms, JDBC "
                + "5–100 ms back-off), so when a node releases, its own next thread, asking at once, usually wins "
                + "again. ZooKeeper queues every node's request on the server (sequential nodes) and grants the "
                + "oldest; its tokens are zxids, so there is no local hand-off: every grant is a server round trip "
                + "and goes to another node (node changes = grants). etcd does the same with keys queued by create "
                + "revision (its tokens): a release deletes the holder's key, etcd tells the next key's node through "
                + "its watch, and that node re-reads its place (one more transaction) before it holds the lock.");
        cells.line("- ZooKeeper writes (create and delete of the lock node) are answered after the server has appended "
                + "them to its transaction log and fsynced it (`zookeeper.forceSync=yes`, the default; concurrent "
                + "writes share an fsync). Run with `-Dzookeeper.forceSync=no` to see the protocol without the disk.");
        cells.line("- etcd: an uncontended cycle is two transactions, the lock (put the request's key on its lease and "
                + "read the key before it) and the release (delete the key if it still has its create revision); "
                + "a watchdog lock's key is on a lease the node shares among its watchdog locks, granted by the first "
                + "acquire and kept alive by the store (one keep-alive per third of the lease, not per lock). Every "
                + "write is appended to etcd's write-ahead log and fsynced before it is answered; the harness puts "
                + "the data on tmpfs (see the setup), where that fsync costs nothing. With 3 members a write is also "
                + "committed by a second member (one more leader → follower → leader trip over loopback).");
        cells.line("- H2 keeps the database in memory (no disk at all): the JDBC path's cost without a database's "
                + "durability. PostgreSQL keeps its durability defaults: each lock and each release is a commit, "
                + "flushed to the write-ahead log. MariaDB flushes its redo log at every commit "
                + "(`innodb_flush_log_at_trx_commit=1`, the default): each lock (one insert-or-update statement, "
                + "which answers its token as the generated key) and each release is a commit.");
        cells.line("");
    }
}
