package dev.distlock.test.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.distlock.embedded.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fault-injecting proxy in front of a real Redis server: each mode does to a client what it says. */
class FaultProxyTests {

    static RedisServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static Socket client(FaultProxy proxy, Duration readTimeout) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        socket.setSoTimeout((int) readTimeout.toMillis());
        return socket;
    }

    private static String ping(Socket socket) throws IOException {
        socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            line.append((char) b);
        }
        return line.toString().trim();
    }

    @Test
    void passRelaysAndDelayHoldsEachChunk() throws IOException {
        try (FaultProxy proxy = FaultProxy.start("test", redis.port());
                Socket socket = client(proxy, Duration.ofSeconds(5))) {
            assertThat(ping(socket)).isEqualTo("+PONG");
            proxy.delay(Duration.ofMillis(200));
            long start = System.nanoTime();
            assertThat(ping(socket)).isEqualTo("+PONG");
            // Held once on the way there and once on the way back.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        }
    }

    @Test
    void dropHoldsEverythingUntilThePartitionHeals() throws IOException {
        try (FaultProxy proxy = FaultProxy.start("test", redis.port());
                Socket socket = client(proxy, Duration.ofMillis(500))) {
            assertThat(ping(socket)).isEqualTo("+PONG");
            proxy.drop();
            assertThatThrownBy(() -> ping(socket)).isInstanceOf(SocketTimeoutException.class);
            try (Socket fresh = client(proxy, Duration.ofMillis(500))) {
                assertThatThrownBy(() -> ping(fresh)).isInstanceOf(SocketTimeoutException.class);
            }
            proxy.pass();
            socket.setSoTimeout(5000);
            // The held PING is answered now, then the next one: nothing was lost inside the connection.
            assertThat(ping(socket)).isEqualTo("+PONG");
            assertThat(ping(socket)).isEqualTo("+PONG");
        }
    }

    @Test
    void aServerKilledBehindAPartitionIsNotSeenDeadUntilItHeals() throws IOException {
        RedisServerProcess doomed = RedisServerProcess.startOnFreePort();
        try (FaultProxy proxy = FaultProxy.start("test", doomed.port());
                Socket socket = client(proxy, Duration.ofMillis(500))) {
            assertThat(ping(socket)).isEqualTo("+PONG");
            proxy.drop();
            doomed.kill();
            // Neither the server's FIN nor its RST crosses the blackhole: the client only sees silence.
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            proxy.pass();
            socket.setSoTimeout(5000);
            assertThatThrownBy(() -> {
                if (socket.getInputStream().read() < 0) {
                    throw new IOException("end of stream");
                }
            }).isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
        }
        finally {
            doomed.close();
        }
    }

    @Test
    void refuseResetsNewConnectionsAndResetConnectionsBreaksOpenOnes() throws IOException {
        try (FaultProxy proxy = FaultProxy.start("test", redis.port());
                Socket open = client(proxy, Duration.ofSeconds(5))) {
            assertThat(ping(open)).isEqualTo("+PONG");
            proxy.refuse();
            try (Socket refused = client(proxy, Duration.ofSeconds(5))) {
                assertThatThrownBy(() -> ping(refused)).isInstanceOf(IOException.class);
            }
            assertThat(ping(open)).as("open connections are left alone").isEqualTo("+PONG");
            proxy.resetConnections();
            assertThatThrownBy(() -> ping(open)).isInstanceOf(IOException.class);
            proxy.pass();
            try (Socket again = client(proxy, Duration.ofSeconds(5))) {
                assertThat(ping(again)).isEqualTo("+PONG");
            }
        }
    }
}
