package dev.distlock.etcd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtures;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;

/**
 * The etcd store's fixtures: {@code etcd} (one member) and {@code etcd-3} (three members, one Raft group), etcd
 * processes from the machine's binary started as this module's tests start them ({@link EtcdTestCluster}: loopback
 * ports, data on {@code /dev/shm}, heartbeat 50 ms, election 500 ms); every node a store with a jetcd client of
 * its own on all members' endpoints. Unavailable without an etcd binary.
 */
public final class EtcdFixtures implements StoreFixture.Provider {

    /** The key prefix of the fixtures' stores. */
    static final String KEY_PREFIX = "fixture";

    @Override
    public List<String> ids() {
        return List.of("etcd", "etcd-3");
    }

    /** The contract runs on one member; {@code etcd-3} adds nothing to it (EtcdFaultTests cover the members). */
    @Override
    public List<String> contractIds() {
        return List.of("etcd");
    }

    @Override
    public StoreFixture.Availability start(String id) {
        int members = "etcd".equals(id) ? 1 : 3;
        String label = "etcd (" + members + (members == 1 ? " member)" : " members)");
        // Checked first: without a binary EtcdTestCluster.start throws JUnit's TestAbortedException (an assumption).
        Optional<Path> binary = EtcdTestCluster.binary();
        if (binary.isEmpty()) {
            return new StoreFixture.Availability.Unavailable(label,
                    "no etcd binary on this machine (Debian's `etcd-server`, or `DISTLOCK_ETCD_BIN`)");
        }
        return new StoreFixture.Availability.Ready(new Fixture(id, label, binary.get(), EtcdTestCluster.start(members)));
    }

    private static final class Fixture implements StoreFixture {

        private final String id;

        private final String label;

        private final Path binary;

        private final EtcdTestCluster cluster;

        Fixture(String id, String label, Path binary, EtcdTestCluster cluster) {
            this.id = id;
            this.label = label;
            this.binary = binary;
            this.cluster = cluster;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String label() {
            return label;
        }

        @Override
        public String setup() {
            int members = cluster.size();
            String data = Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm (tmpfs: its fsyncs cost nothing)"
                    : "a temporary directory under " + System.getProperty("java.io.tmpdir") + " (disk)";
            String jetcd = StoreFixtures.version("io.etcd", "jetcd-core", Client.class);
            return version(binary) + " (" + binary + "), " + (members == 1 ? "one member, a process of its own"
                    : members + " members, processes of their own (one Raft group: a write is answered once a "
                            + "majority has it)")
                    + ", on loopback, data on " + data + ", `--heartbeat-interval 50 --election-timeout 500` (as in "
                    + "distlock-etcd's tests), other settings etcd's defaults; every node a jetcd " + jetcd
                    + " client of its own" + (members == 1 ? "" : " on all " + members + " endpoints (jetcd's round "
                            + "robin: followers forward writes to the leader)");
        }

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            // The store closes the jetcd client it made; the lock service closes the store.
            return EtcdLockStore.connect(EtcdLockConfig.defaults().withEndpoints(cluster.endpoints())
                    .withKeyPrefix(KEY_PREFIX));
        }

        @Override
        public void stopServer() {
            for (int i = 0; i < cluster.size(); i++) {
                cluster.stop(i);
            }
        }

        @Override
        public void startServer() {
            for (int i = 0; i < cluster.size(); i++) {
                cluster.startMember(i);
            }
        }

        @Override
        public void breakLease(String name) {
            cluster.admin().getKVClient().delete(new EtcdKeys(KEY_PREFIX).lockPrefix(name),
                    DeleteOption.builder().isPrefix(true).build()).join();
        }

        /** The line: the other nodes (keys) of the name. */
        @Override
        public boolean countsWaiters() {
            return true;
        }

        @Override
        public Optional<HolderCommand> holder() {
            return Optional.of(new HolderCommand(EtcdHolderProcess.class,
                    List.of(String.join(",", cluster.endpoints()), KEY_PREFIX)));
        }

        @Override
        public Optional<RawCycle> rawCycle() {
            return Optional.of(new EtcdRawCycle(cluster.endpoints()));
        }

        @Override
        public void close() {
            cluster.close();
        }

        /** @return "etcd 3.4.23", from {@code etcd --version} */
        private static String version(Path binary) {
            try {
                Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true)
                        .start();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                process.waitFor(10, TimeUnit.SECONDS);
                for (String line : output.split("\\R")) {
                    if (line.startsWith("etcd Version:")) {
                        return "etcd " + line.substring("etcd Version:".length()).trim();
                    }
                }
            }
            catch (IOException ex) {
                // fall through: the version is for reports only
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return "etcd (version unknown)";
        }
    }
}
