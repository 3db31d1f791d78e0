package dev.distlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.test.support.FaultProxy;
import dev.distlock.test.support.campaign.FakedClock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Sentinel deployment (a master, two replicas, three Sentinels) in which every data server sits behind a
 * {@link FaultProxy}, and everyone reaches it only through that proxy: the replicas replicate from the master's
 * proxy, each server announces its proxy's port ({@code replica-announce-port}), and the Sentinels monitor the
 * proxies, so the addresses Sentinel hands to clients and to replicas after a failover are proxies too. Cutting a
 * server's proxy therefore cuts it off from the replicas, the Sentinels and the application nodes at once, as a
 * network partition of its host would.
 * <p>
 * {@link dev.distlock.embedded.RedisSentinelTopology} starts the same processes without proxies; this one exists
 * because a partition of the replication links needs the servers to know each other by their proxies.
 */
final class ProxiedSentinel implements AutoCloseable {

    static final String MASTER_NAME = "campaign-master";

    private static final Logger log = LoggerFactory.getLogger(ProxiedSentinel.class);

    private static final String[] DATA_ARGS = { "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
            "--replica-announce-ip", "127.0.0.1" };

    private final List<RedisServerProcess> servers = new ArrayList<>();

    private final List<FaultProxy> proxies = new ArrayList<>();

    private final List<RedisServerProcess> sentinels = new ArrayList<>();

    private final Map<Integer, Long> wrongSince = new HashMap<>();

    /** Starts the servers behind their proxies and the Sentinels, all on the machine's clock. */
    ProxiedSentinel() {
        this(List.of());
    }

    /**
     * Starts the servers behind their proxies and the Sentinels, and returns once all is replicated and known.
     *
     * @param clocks one faked clock per data server, in server order, or none: each server runs under its own in
     *        every run (a restarted server keeps its builder's environment). The Sentinels always run on the
     *        machine's clock: they judge a master down by their wall clock ({@code down-after-milliseconds}) and
     *        enter TILT mode when it jumps, so a faked Sentinel clock would fault the failure detector, not the store
     */
    ProxiedSentinel(List<FakedClock> clocks) {
        try {
            for (int i = 0; i < 3; i++) {
                int port = LoopbackPorts.free();
                FaultProxy proxy = FaultProxy.start("redis-" + i, port);
                proxies.add(proxy);
                RedisServerProcess.Builder builder = RedisServerProcess.builder().port(port).args(DATA_ARGS)
                        .args("--replica-announce-port", String.valueOf(proxy.port()));
                if (i > 0) {
                    builder.args("--replicaof", "127.0.0.1", String.valueOf(proxies.get(0).port()));
                }
                if (!clocks.isEmpty()) {
                    clocks.get(i).environment().forEach(builder::environment);
                }
                servers.add(builder.start());
            }
            startSentinels();
            awaitHealthy(Duration.ofSeconds(60));
        }
        catch (RuntimeException ex) {
            close();
            throw ex;
        }
    }

    private void startSentinels() {
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < 3) {
            int port = LoopbackPorts.free();
            if (!ports.contains(port)) {
                ports.add(port);
            }
        }
        SecureRandom random = new SecureRandom();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] id = new byte[20];
            random.nextBytes(id);
            ids.add(HexFormat.of().formatHex(id));
        }
        for (int i = 0; i < 3; i++) {
            StringBuilder config = new StringBuilder();
            config.append("sentinel myid ").append(ids.get(i)).append('\n');
            config.append("sentinel monitor ").append(MASTER_NAME).append(" 127.0.0.1 ").append(proxies.get(0).port())
                    .append(" 2\n");
            config.append("sentinel down-after-milliseconds ").append(MASTER_NAME).append(" 2000\n");
            config.append("sentinel failover-timeout ").append(MASTER_NAME).append(" 2000\n");
            config.append("sentinel parallel-syncs ").append(MASTER_NAME).append(" 1\n");
            for (int r = 1; r < 3; r++) {
                config.append("sentinel known-replica ").append(MASTER_NAME).append(" 127.0.0.1 ")
                        .append(proxies.get(r).port()).append('\n');
            }
            for (int j = 0; j < 3; j++) {
                if (j != i) {
                    config.append("sentinel known-sentinel ").append(MASTER_NAME).append(" 127.0.0.1 ")
                            .append(ports.get(j)).append(' ').append(ids.get(j)).append('\n');
                }
            }
            sentinels.add(RedisServerProcess.builder().sentinel().port(ports.get(i)).config(config.toString())
                    .start());
        }
    }

    /** @return the Sentinels as {@code host:port,...} */
    String sentinelNodes() {
        return sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","));
    }

    /** @return the Sentinel processes */
    List<RedisServerProcess> sentinels() {
        return List.copyOf(sentinels);
    }

    /** @return the data servers, in start order */
    List<RedisServerProcess> servers() {
        return List.copyOf(servers);
    }

    /** @return each data server's proxy, in server order */
    List<FaultProxy> proxies() {
        return List.copyOf(proxies);
    }

    /** @return the index of the server every answering Sentinel names as master, or -1 while they disagree */
    int agreedMaster() {
        Integer agreed = null;
        int answers = 0;
        for (RedisServerProcess sentinel : sentinels) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            Integer reported;
            try {
                List<?> reply = (List<?>) sentinel.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
                reported = Integer.parseInt(String.valueOf(reply.get(1)));
            }
            catch (RuntimeException ex) {
                continue;
            }
            if (agreed != null && !agreed.equals(reported)) {
                return -1;
            }
            agreed = reported;
            answers++;
        }
        if (agreed == null || answers < 2) {
            return -1;
        }
        for (int i = 0; i < proxies.size(); i++) {
            if (proxies.get(i).port() == agreed) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Waits until the Sentinels agree on a master other than {@code old} that answers as a master.
     *
     * @param old the index of the failed master
     * @param timeout how long to wait
     * @return the new master's index
     */
    int awaitFailover(int old, Duration timeout) {
        return await("a Sentinel failover away from redis-" + old).atMost(timeout)
                .pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
                    int master = agreedMaster();
                    return master >= 0 && master != old && "master".equals(role(master).get(0)) ? master : -1;
                }, master -> master >= 0);
    }

    /**
     * Brings everything back: proxies pass, paused processes resume, dead ones start (a data server as a replica of
     * the agreed master), stray servers are pointed at the master; then waits until the master has both replicas
     * online and every Sentinel sees them.
     *
     * @param timeout how long to wait
     */
    void heal(Duration timeout) {
        proxies.forEach(FaultProxy::pass);
        servers.forEach(RedisServerProcess::resume);
        sentinels.forEach(RedisServerProcess::resume);
        sentinels.stream().filter(s -> !s.isRunning()).forEach(RedisServerProcess::start);
        wrongSince.clear();
        awaitHealthy(timeout);
    }

    private void awaitHealthy(Duration timeout) {
        long started = System.nanoTime();
        await("the proxied Sentinel topology to be healthy").atMost(timeout).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> healthProblem() == null);
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (millis > 200) {
            log.info("Proxied Sentinel topology healthy after {} ms", millis);
        }
    }

    private @Nullable String healthProblem() {
        int master = agreedMaster();
        if (master < 0) {
            return "the Sentinels do not agree on a master";
        }
        RedisServerProcess masterProcess = servers.get(master);
        if (!masterProcess.isRunning()) {
            // Named by the Sentinels but dead without a failover: back as that master (empty: nothing is saved).
            masterProcess.startWith("--replicaof", "no", "one");
        }
        String masterProxy = String.valueOf(proxies.get(master).port());
        for (int i = 0; i < servers.size(); i++) {
            if (i == master) {
                continue;
            }
            RedisServerProcess server = servers.get(i);
            if (!server.isRunning()) {
                server.startWith("--replicaof", "127.0.0.1", masterProxy);
                continue;
            }
            List<?> role = role(i);
            boolean right = "slave".equals(role.get(0)) && masterProxy.equals(String.valueOf(role.get(2)));
            if (!right) {
                // Sentinel corrects a stray server itself within seconds; do it here if it does not.
                long since = wrongSince.computeIfAbsent(i, k -> System.nanoTime());
                if (System.nanoTime() - since > Duration.ofSeconds(5).toNanos()) {
                    server.call("REPLICAOF", "127.0.0.1", masterProxy);
                    wrongSince.remove(i);
                }
                return "redis-" + i + " has role " + role;
            }
            wrongSince.remove(i);
            if (!"connected".equals(String.valueOf(role.get(3)))) {
                return "redis-" + i + " replication " + role.get(3);
            }
        }
        List<?> masterRole = role(master);
        if (!"master".equals(masterRole.get(0)) || ((List<?>) masterRole.get(2)).size() < 2) {
            return "master redis-" + master + " has role " + masterRole;
        }
        for (RedisServerProcess sentinel : sentinels) {
            for (Object replica : (List<?>) sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME)) {
                Map<String, String> fields = pairs((List<?>) replica);
                if (!"slave".equals(fields.get("flags"))) {
                    return "sentinel " + sentinel.port() + " sees replica " + fields.get("name") + " flags "
                            + fields.get("flags");
                }
            }
        }
        return null;
    }

    /** @return {@code ROLE} of a data server, asked directly (not through its proxy) */
    List<?> role(int server) {
        return (List<?>) servers.get(server).call("ROLE");
    }

    private static Map<String, String> pairs(List<?> flat) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return map;
    }

    @Override
    public void close() {
        sentinels.forEach(RedisServerProcess::kill);
        servers.forEach(RedisServerProcess::kill);
        proxies.forEach(FaultProxy::close);
    }
}
