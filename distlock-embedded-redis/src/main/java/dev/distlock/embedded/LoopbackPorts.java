package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

/**
 * Loopback ports for servers: which are free, and which something listens on. Every server of this module binds
 * {@code 127.0.0.1} only, so nothing here looks beyond the loopback interface.
 */
final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /** @return a loopback port that nothing listened on a moment ago (another process may take it before use) */
    static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param port a port
     * @return true when the port could be bound just now, e.g. a cluster node's bus port, which is chosen with
     *         its client port
     */
    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /**
     * @param port a port
     * @return true when a TCP connection to it could be opened within 500 ms
     */
    static boolean isListening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /**
     * Starts something on a given port, or on a free one when the port is 0.
     *
     * @param port the port; 0 picks a free one, another one when it was taken (see {@link #startRetried})
     * @param start starts on the port, throwing {@link IllegalStateException} when it cannot
     * @param <T> what is started
     * @return what started
     */
    static <T> T startOn(int port, IntFunction<T> start) {
        return port != 0 ? start.apply(port) : startRetried(LoopbackPorts::free, start);
    }

    /**
     * Starts something on a port chosen just before. A port is only free until someone binds it, so a start that
     * fails is tried again on a newly chosen port, five times at most.
     *
     * @param choose chooses a port
     * @param start starts on the chosen port, throwing {@link IllegalStateException} when it cannot
     * @param <T> what is started
     * @return what started
     * @throws IllegalStateException the last attempt's failure
     */
    static <T> T startRetried(IntSupplier choose, IntFunction<T> start) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return start.apply(choose.getAsInt());
            }
            catch (IllegalStateException ex) {
                last = ex;
            }
        }
        throw last;
    }
}
