package dev.distlock.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Independent Redis masters, as Redlock uses them: plain servers on loopback ports that know nothing of each
 * other. Servers are addressed by index.
 * <pre>{@code
 * RedisServerGroup group = RedisTopologies.sharedGroup();        // or RedisServerGroup.start(5)
 * // distlock.redlock.nodes = group.uris()
 * group.kill(1);
 * group.pause(2);
 * group.heal();   // all running and answering again (a killed server comes back empty)
 * }</pre>
 */
public final class RedisServerGroup implements AutoCloseable {

    private final List<RedisServerProcess> servers;

    private final boolean shared;

    private RedisServerGroup(List<RedisServerProcess> servers, boolean shared) {
        this.servers = servers;
        this.shared = shared;
    }

    /**
     * Starts independent servers on free loopback ports.
     *
     * @param count how many, e.g. 5
     * @param extraArgs further {@code redis-server} arguments for every server
     * @return the running group
     */
    public static RedisServerGroup start(int count, String... extraArgs) {
        return start(count, false, extraArgs);
    }

    static RedisServerGroup start(int count, boolean shared, String... extraArgs) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count);
        }
        List<RedisServerProcess> servers = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                servers.add(RedisServerProcess.startOnFreePort(extraArgs));
            }
        }
        catch (RuntimeException ex) {
            servers.forEach(RedisServerProcess::kill);
            throw ex;
        }
        return new RedisServerGroup(List.copyOf(servers), shared);
    }

    /** @return the servers, in index order */
    public List<RedisServerProcess> servers() {
        return servers;
    }

    /**
     * Returns one server.
     *
     * @param index its index
     * @return the server
     */
    public RedisServerProcess server(int index) {
        return servers.get(index);
    }

    /** @return the number of servers */
    public int size() {
        return servers.size();
    }

    /** @return the servers' addresses */
    public List<RedisAddress> addresses() {
        return servers.stream().map(RedisServerProcess::address).toList();
    }

    /** @return the servers as {@code redis://host:port,...}, the form {@code distlock.redlock.nodes} takes */
    public String uris() {
        return addresses().stream().map(RedisAddress::uri).collect(Collectors.joining(","));
    }

    /**
     * Kills a server with {@code SIGKILL}.
     *
     * @param index its index
     * @return the killed server
     */
    public RedisServerProcess kill(int index) {
        RedisServerProcess server = servers.get(index);
        server.kill();
        return server;
    }

    /**
     * Freezes a server with {@code SIGSTOP}.
     *
     * @param index its index
     * @return the paused server
     */
    public RedisServerProcess pause(int index) {
        RedisServerProcess server = servers.get(index);
        server.pause();
        return server;
    }

    /**
     * Resumes a paused server.
     *
     * @param index its index
     * @return the server
     */
    public RedisServerProcess resume(int index) {
        RedisServerProcess server = servers.get(index);
        server.resume();
        return server;
    }

    /**
     * Starts a server again on its port and work directory: a killed one is started, a running one is stopped
     * first. It comes back with the data of its last {@code SAVE}, or empty.
     *
     * @param index its index
     * @return the running server
     */
    public RedisServerProcess restart(int index) {
        RedisServerProcess server = servers.get(index);
        if (server.isRunning()) {
            server.restart();
        }
        else {
            server.start();
        }
        return server;
    }

    /** Resumes paused servers and starts killed ones again, so that every server answers. */
    public void heal() {
        for (RedisServerProcess server : servers) {
            if (server.isRunning()) {
                server.resume();
            }
            else {
                server.start();
            }
        }
    }

    /** Deletes every key on every server. */
    public void flushAll() {
        servers.forEach(server -> server.call("FLUSHALL"));
    }

    /**
     * Kills every server. Does nothing on a shared group ({@link RedisTopologies}): that one lives until the JVM
     * exits.
     */
    @Override
    public void close() {
        if (!shared) {
            servers.forEach(RedisServerProcess::kill);
        }
    }

    @Override
    public String toString() {
        return "RedisServerGroup" + servers.stream().map(RedisServerProcess::port).toList();
    }
}
