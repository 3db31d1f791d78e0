package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

/**
 * Loopback ports for servers: which are free, and which something listens on. Every server of this module binds
 * {@code 127.0.0.1} only, so nothing here looks beyond the loopback interface.
 * <p>
 * A free port is chosen <em>below the kernel's ephemeral range</em> ({@code ip_local_port_range}, where the kernel
 * picks the local port of every outgoing connection and of {@code bind(0)}), at random. A test stops a server and
 * starts it again on the same port; a port from the ephemeral range may be taken meanwhile by any connection on the
 * machine, even the test's own client reconnecting to it (a TCP connection to itself), and the restart then fails with
 * "Address already in use" (seen in CI). Below that range only a server that binds it on purpose can take it.
 */
public final class LoopbackPorts {

    /** The lowest port chosen: clear of the well-known and most fixed service ports. */
    private static final int LOWEST = 10_000;

    /** The first port of the ephemeral range; 32768 (Linux's default) where it cannot be read. */
    private static final int EPHEMERAL_START = readEphemeralStart();

    private LoopbackPorts() {
    }

    /** @return a loopback port that nothing listened on a moment ago (another process may take it before use) */
    public static int free() {
        return distinct(1)[0];
    }

    /**
     * Several free ports at once, all different. Asking one port at a time, closing each socket before asking again,
     * can hand out the same port twice (Curator's {@code InstanceSpec} does, and a ZooKeeper ensemble then fails to
     * start with "Multiple entries with same key").
     *
     * @param count how many ports
     * @return that many distinct loopback ports, free a moment ago: every socket is held open until all are chosen
     */
    public static int[] distinct(int count) {
        ServerSocket[] held = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                held[i] = bindFree(EPHEMERAL_START);
                ports[i] = held[i].getLocalPort();
            }
            return ports;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No free loopback port", ex);
        }
        finally {
            for (ServerSocket socket : held) {
                close(socket);
            }
        }
    }

    /**
     * @param below the port to stay under, e.g. so that a cluster node's bus port (10000 above) stays below the
     *        ephemeral range too
     * @return a free loopback port under {@code below}, or the kernel's choice when that leaves too few to try
     */
    static int freeBelow(int below) {
        try (ServerSocket socket = bindFree(Math.min(below, EPHEMERAL_START))) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No free loopback port", ex);
        }
    }

    /** @return the first port of the ephemeral range, which the ports chosen here stay below */
    static int ephemeralStart() {
        return EPHEMERAL_START;
    }

    private static int readEphemeralStart() {
        try {
            // Not Files.readString: for a size-0 file it reads one byte, then reads on from offset 1, where a sysctl
            // file answers nothing; it read "3" of "32768 60999". A buffered reader asks for a whole block at once.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        }
        catch (IOException | RuntimeException ex) { // not Linux, or no /proc
            return 32_768;
        }
    }

    private static ServerSocket bindFree(int below) throws IOException {
        if (below - LOWEST >= 1_000) {
            for (int attempt = 0; attempt < 100; attempt++) {
                ServerSocket socket = new ServerSocket();
                try {
                    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                            ThreadLocalRandom.current().nextInt(LOWEST, below)), 1);
                    return socket;
                }
                catch (IOException taken) {
                    close(socket);
                }
            }
        }
        return new ServerSocket(0, 1, InetAddress.getLoopbackAddress()); // a range too narrow: the kernel's choice
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
     * @return true when something accepts TCP connections on it (one could be opened within 500 ms)
     */
    public static boolean isListening(int port) {
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
