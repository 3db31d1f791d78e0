package dev.distlock.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A minimal blocking Redis client (RESP2) used to build and inspect topologies.
 * <p>
 * Why not Lettuce: topology code must keep working while nodes are killed or frozen with {@code SIGSTOP}. A plain
 * socket with a hard connect and read timeout, no reconnect logic, no event loop and no background threads fails
 * fast and predictably on a frozen node, never shares state with the clients under test, and adds no dependency
 * to the sample app, which uses this module at run time. The commands needed here ({@code ROLE}, {@code INFO},
 * {@code SENTINEL ...}, {@code CLUSTER ...}, {@code REPLICAOF}) are all plain request/reply.
 * <p>
 * Replies map to Java as: simple and bulk strings to {@link String} (UTF-8), integers to {@link Long}, arrays to
 * {@link List}, nil to {@code null}. An error reply is thrown as {@link RespErrorException}; inside an array
 * (e.g. the reply of {@code EXEC}) it is returned as a {@link RespErrorException} element. Not thread-safe.
 */
public final class RespConnection implements AutoCloseable {

    /** Timeout used by the topologies for one command: long enough for a loaded machine, short for a frozen node. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private final RedisAddress address;

    private final Socket socket;

    private final InputStream in;

    private final OutputStream out;

    private RespConnection(RedisAddress address, Socket socket) throws IOException {
        this.address = address;
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Opens a connection.
     *
     * @param address the server
     * @param timeout bound on connecting and on waiting for each reply
     * @return the open connection
     * @throws UncheckedIOException when the server cannot be reached
     */
    public static RespConnection open(RedisAddress address, Duration timeout) {
        Socket socket = new Socket();
        try {
            int millis = (int) Math.max(1, timeout.toMillis());
            socket.connect(new InetSocketAddress(address.host(), address.port()), millis);
            socket.setSoTimeout(millis);
            socket.setTcpNoDelay(true);
            return new RespConnection(address, socket);
        }
        catch (IOException ex) {
            closeQuietly(socket);
            throw new UncheckedIOException("Could not connect to " + address, ex);
        }
    }

    /**
     * Opens a connection, sends one command and closes the connection.
     *
     * @param address the server
     * @param timeout bound on connecting and on the reply
     * @param args the command and its arguments
     * @return the reply
     * @throws RespErrorException when the server answers with an error
     * @throws UncheckedIOException when the server cannot be reached or does not answer in time
     */
    public static @Nullable Object call(RedisAddress address, Duration timeout, String... args) {
        try (RespConnection connection = open(address, timeout)) {
            return connection.call(args);
        }
    }

    /** @return the server this connection talks to */
    public RedisAddress address() {
        return address;
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param args the command and its arguments
     * @return the reply
     * @throws RespErrorException when the server answers with an error
     * @throws UncheckedIOException when the connection fails or the reply does not come in time
     */
    public @Nullable Object call(String... args) {
        return call(List.of(args));
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param args the command and its arguments
     * @return the reply
     * @throws RespErrorException when the server answers with an error
     * @throws UncheckedIOException when the connection fails or the reply does not come in time
     */
    public @Nullable Object call(List<String> args) {
        try {
            out.write(encode(args));
            out.flush();
            Object reply = read();
            if (reply instanceof RespErrorException error) {
                throw new RespErrorException(String.valueOf(error.getMessage()));
            }
            return reply;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(address + " " + args.get(0) + ": " + ex.getMessage(), ex);
        }
    }

    private static byte[] encode(List<String> args) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        writeAscii(buffer, "*" + args.size() + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buffer, "$" + bytes.length + "\r\n");
            buffer.writeBytes(bytes);
            writeAscii(buffer, "\r\n");
        }
        return buffer.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream buffer, String text) {
        buffer.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
    }

    private @Nullable Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by the server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RespErrorException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("truncated bulk string");
                }
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed by the server");
            }
            if (b == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("malformed line");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    /** Closes the socket. */
    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // nothing to do: the socket is gone either way
        }
    }
}
