package dev.distlock.test.support.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
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
