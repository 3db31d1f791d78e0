package dev.distlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a just started {@code redis-server} to serve: it answers {@code PING} on its port. The process's own
 * exit ends the wait early, so that a server that cannot start (a port taken, a bad argument) fails at once instead
 * of after the timeout.
 */
final class ServerReadiness {

    /** How a start ended. */
    enum Outcome {
        /** The server answers commands. */
        ANSWERED,
        /** The process exited before it answered. */
        EXITED,
        /** The process still runs but did not answer in time. */
        SILENT
    }

    private ServerReadiness() {
    }

    /**
     * @param started the process
     * @param port its loopback port
     * @param timeout how long to wait
     * @return how the start ended
     */
    static Outcome await(Process started, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                return Outcome.EXITED;
            }
            if (answersPing(port)) {
                return Outcome.ANSWERED;
            }
            try {
                // Waiting on the process, not sleeping: an exit ends the pause at once.
                started.waitFor(20, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        return Outcome.SILENT;
    }

    /**
     * A reply to PING (also -NOAUTH) means the server is ready to serve, except -LOADING: a server that is still
     * reading its RDB or AOF after a restart answers every command with that error.
     */
    private static boolean answersPing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\n' && line.length() < 100; b = in.read()) {
                line.append((char) b);
            }
            String reply = line.toString();
            return reply.startsWith("+") || (reply.startsWith("-") && !reply.startsWith("-LOADING"));
        }
        catch (IOException ex) {
            return false;
        }
    }
}
