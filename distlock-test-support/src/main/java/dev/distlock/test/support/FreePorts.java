package dev.distlock.test.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free loopback ports for test servers that must be told their ports up front (e.g. the members of a ZooKeeper
 * ensemble, each with a client, an election and a quorum port). Asking one port at a time, closing each socket before
 * asking again, can hand out the same port twice: Curator's {@code InstanceSpec} does exactly that, and an ensemble
 * then fails to start with "Multiple entries with same key".
 */
public final class FreePorts {

    private FreePorts() {
    }

    /**
     * @param count how many ports
     * @return that many distinct ports, free a moment ago: all sockets are held open until every port is chosen
     */
    public static int[] distinct(int count) {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No free loopback port", ex);
        }
        finally {
            for (ServerSocket socket : sockets) {
                close(socket);
            }
        }
    }

    private static void close(ServerSocket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        }
        catch (IOException ex) {
            // the port was only looked at
        }
    }
}
