package dev.distlock.test.support.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

import dev.distlock.test.support.FaultProxy;

/**
 * The network between the nodes and the servers of a topology: one {@link FaultProxy} per node and server, so that
 * the nemesis can cut, slow or reset the links of one node to some servers while the other nodes go on.
 */
public final class Links implements AutoCloseable {

    private final List<IntSupplier> serverPorts;

    private final Map<String, List<FaultProxy>> byNode = new ConcurrentHashMap<>();

    /**
     * @param serverPorts the servers' ports, in server order
     */
    public Links(List<IntSupplier> serverPorts) {
        this.serverPorts = List.copyOf(serverPorts);
    }

    /**
     * @param <S> the servers' type
     * @param servers the servers, in server order
     * @param port a server's port, read whenever a proxy is made (a server started again may have another)
     * @return the links to those servers
     */
    public static <S> Links toServers(List<? extends S> servers, ToIntFunction<S> port) {
        List<IntSupplier> ports = new ArrayList<>();
        for (S server : servers) {
            ports.add(() -> port.applyAsInt(server));
        }
        return new Links(ports);
    }

    /**
     * @param node a node
     * @param scheme what comes before each address, e.g. {@code "http://"}, or {@code ""}
     * @return the addresses of its proxies in server order, {@code <scheme>127.0.0.1:<port>}, joined by commas: how a
     *         node's spec lists the servers it reaches
     */
    public String addresses(String node, String scheme) {
        return of(node).stream().map(proxy -> scheme + "127.0.0.1:" + proxy.port()).collect(Collectors.joining(","));
    }

    /**
     * @param node a node
     * @return its proxies, one per server in server order (made on first use)
     */
    public List<FaultProxy> of(String node) {
        return byNode.computeIfAbsent(node, n -> {
            List<FaultProxy> proxies = new ArrayList<>();
            for (int i = 0; i < serverPorts.size(); i++) {
                proxies.add(FaultProxy.start(n + " -> server " + i, serverPorts.get(i).getAsInt()));
            }
            return List.copyOf(proxies);
        });
    }

    /** @return the nodes that have links */
    public List<String> nodes() {
        return List.copyOf(byNode.keySet());
    }

    /** @return every proxy */
    public List<FaultProxy> all() {
        return byNode.values().stream().flatMap(List::stream).toList();
    }

    /** Lets every link pass again. */
    public void passAll() {
        all().forEach(FaultProxy::pass);
    }

    @Override
    public void close() {
        all().forEach(FaultProxy::close);
    }
}
