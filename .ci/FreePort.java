import java.io.IOException;
import java.net.ServerSocket;

/** Prints a free TCP port on the loopback interface (for .ci/generated-app.sh: `java .ci/FreePort.java`). */
public class FreePort {

    public static void main(String[] args) throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            System.out.println(socket.getLocalPort());
        }
    }
}
