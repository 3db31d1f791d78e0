package dev.distlock.test.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injecting TCP proxy on loopback: clients connect to {@link #port()} and the proxy relays every
 * connection to a target port, or injects a network fault on the way. Put one in front of each server (between
 * the application nodes and the servers, and on the replication links: a replica that replicates from a master's
 * proxy), then:
 * <ul>
 * <li>{@link #pass()}: relay bytes unchanged;</li>
 * <li>{@link #delay(Duration)}: hold every chunk of bytes that long before relaying it (a slow link);</li>
 * <li>{@link #drop()}: a blackhole, one side of a partition: connections stay open but nothing gets through, and a
 * new connection gets no answer, until the mode changes. Bytes are held, not lost, as TCP would retransmit them
 * once the partition heals: losing bytes inside a connection is not a fault TCP lets happen. The end of a link
 * (the server closed or reset it, or died) is held too, so a server killed behind a partition does not tell its
 * clients so;</li>
 * <li>{@link #refuse()}: every new connection is reset at once (a port nobody listens on, or a firewall's
 * reject);</li>
 * <li>{@link #resetConnections()}: reset every open connection now (a middlebox or peer reboot).</li>
 * </ul>
 * Thread-safe: a nemesis thread changes the mode while the relay threads run.
 */
public final class FaultProxy implements AutoCloseable {

    /** What the proxy does with traffic. */
    public enum Mode {
        /** Relays bytes unchanged. */
        PASS,
        /** Relays every chunk after {@link FaultProxy#delay(Duration)}'s delay. */
        DELAY,
        /** Relays nothing (a blackhole); held bytes go through once the mode changes. */
        DROP,
        /** Resets every new connection. */
        REFUSE
    }

    private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);

    private final String name;

    private final ServerSocket server;

    private final int targetPort;

    private final ProxySockets sockets = new ProxySockets();

    private final Object modeChanged = new Object();

    private final AtomicLong connections = new AtomicLong();

    private volatile Mode mode = Mode.PASS;

    private volatile long delayNanos;

    private volatile boolean closed;

    private FaultProxy(String name, ServerSocket server, int targetPort) {
        this.name = name;
        this.server = server;
        this.targetPort = targetPort;
    }

    /**
     * Starts a proxy on a free loopback port.
     *
     * @param name what it stands for, for logs (e.g. {@code "node-a -> redis-1"})
     * @param targetPort the loopback port it relays to
     * @return the running proxy, in {@link Mode#PASS}
     */
    public static FaultProxy start(String name, int targetPort) {
        try {
            ServerSocket server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
            FaultProxy proxy = new FaultProxy(name, server, targetPort);
            Thread acceptor = new Thread(proxy::acceptLoop, "proxy-accept " + name);
            acceptor.setDaemon(true);
            acceptor.start();
            return proxy;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not open a proxy port for " + name, ex);
        }
    }

    /** @return the loopback port clients connect to */
    public int port() {
        return server.getLocalPort();
    }

    /** @return the port it relays to */
    public int targetPort() {
        return targetPort;
    }

    /** @return the current mode */
    public Mode mode() {
        return mode;
    }

    /** @return how many connections it accepted so far; each counted one is reset by {@link #resetConnections()} */
    public long connections() {
        return connections.get();
    }

    /** Relays bytes unchanged again; bytes held by {@link #drop()} go through now. */
    public void pass() {
        setMode(Mode.PASS);
    }

    /**
     * Delays every chunk of bytes, both ways.
     *
     * @param delay how long each chunk is held
     */
    public void delay(Duration delay) {
        delayNanos = delay.toNanos();
        setMode(Mode.DELAY);
    }

    /** Becomes a blackhole until the mode changes. */
    public void drop() {
        setMode(Mode.DROP);
    }

    /** Resets every new connection until the mode changes; open connections are left alone. */
    public void refuse() {
        setMode(Mode.REFUSE);
    }

    /** Resets every open connection now (with RST, not FIN); the mode stays. */
    public void resetConnections() {
        sockets.resetAll();
    }

    private void setMode(Mode next) {
        synchronized (modeChanged) {
            mode = next;
            modeChanged.notifyAll();
        }
        log.debug("proxy {} ({} -> {}): {}", name, port(), targetPort, next);
    }

    /** Blocks while the proxy is a blackhole: this is the fault, not a stand-in for synchronisation. */
    private void awaitNotDropping() throws InterruptedException {
        synchronized (modeChanged) {
            while (mode == Mode.DROP && !closed) {
                modeChanged.wait();
            }
        }
    }

    /** A link's end (FIN, RST) waits out a blackhole too; an interrupt ends the wait and stays set. */
    private void holdWhileDropping() {
        try {
            awaitNotDropping();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            }
            catch (IOException ex) {
                if (!closed) {
                    log.warn("proxy {} stopped accepting", name, ex);
                }
                return;
            }
            // Counted once resetConnections() can reach it: a caller that saw the count may reset it.
            sockets.add(client);
            connections.incrementAndGet();
            Thread link = new Thread(() -> connect(client), "proxy-link " + name);
            link.setDaemon(true);
            link.start();
        }
    }

    private void connect(Socket client) {
        Socket upstream = null;
        try {
            if (mode == Mode.REFUSE) {
                sockets.reset(client);
                return;
            }
            // A blackhole answers nothing: the connection to the server is only made once the partition heals.
            awaitNotDropping();
            if (mode == Mode.REFUSE || closed) {
                sockets.reset(client);
                return;
            }
            upstream = new Socket();
            sockets.add(upstream);
            upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            Socket server = upstream;
            // Once both directions ended, the link is closed and forgotten.
            AtomicInteger directions = new AtomicInteger(2);
            Runnable ended = () -> {
                if (directions.decrementAndGet() == 0) {
                    sockets.reset(client);
                    sockets.reset(server);
                }
            };
            Thread back = new Thread(() -> {
                pump(server, client);
                ended.run();
            }, "proxy-pump " + name + " <-");
            back.setDaemon(true);
            back.start();
            pump(client, upstream);
            ended.run();
        }
        catch (IOException ex) {
            // The target is down: the client sees its connection reset, as it would without the proxy.
            sockets.reset(client);
            if (upstream != null) {
                sockets.reset(upstream);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                long arrived = System.nanoTime();
                awaitNotDropping();
                if (mode == Mode.DELAY) {
                    long wait = arrived + delayNanos - System.nanoTime();
                    if (wait > 0) {
                        // The delay is the injected fault itself.
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                }
                out.write(buffer, 0, read);
                out.flush();
            }
            // A clean end of stream on one side: pass the FIN on, once a partition lets it through.
            holdWhileDropping();
            to.shutdownOutput();
        }
        catch (IOException ex) {
            // One side reset or closed: reset the other (across a partition once it heals), so that neither waits.
            holdWhileDropping();
            sockets.reset(from);
            sockets.reset(to);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            sockets.reset(from);
            sockets.reset(to);
        }
    }

    /** Stops accepting and resets every open connection. */
    @Override
    public void close() {
        closed = true;
        synchronized (modeChanged) {
            modeChanged.notifyAll();
        }
        try {
            server.close();
        }
        catch (IOException ex) {
            // Closing anyway.
        }
        resetConnections();
    }

    @Override
    public String toString() {
        return "FaultProxy[" + name + " " + port() + " -> " + targetPort + ", " + mode + "]";
    }
}
