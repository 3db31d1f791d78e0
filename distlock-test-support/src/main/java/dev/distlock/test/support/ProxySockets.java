package dev.distlock.test.support;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open sockets of one {@link FaultProxy}, both sides of every link, so that all of them can be reset at once.
 * A reset sends RST, not FIN: that is what a peer or middlebox reboot looks like, and what the client of a dead
 * target sees without the proxy.
 */
final class ProxySockets {

    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    /** @param socket a socket just opened or accepted, reset by {@link #resetAll()} until it is reset */
    void add(Socket socket) {
        open.add(socket);
    }

    /** Resets every open socket now. */
    void resetAll() {
        for (Socket socket : open) {
            reset(socket);
        }
    }

    /**
     * Closes a socket with RST and forgets it; a socket already closed is only forgotten.
     *
     * @param socket the socket
     */
    void reset(Socket socket) {
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
            }
        }
        catch (SocketException ex) {
            // Already gone.
        }
        try {
            socket.close();
        }
        catch (IOException ex) {
            // Already gone.
        }
        open.remove(socket);
    }
}
