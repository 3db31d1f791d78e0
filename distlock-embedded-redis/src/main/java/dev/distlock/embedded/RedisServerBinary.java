package dev.distlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Locates a {@code redis-server} executable.
 * <p>
 * By default it is the real Redis 6.2 binary shipped inside the {@code com.github.codemonstur:embedded-redis}
 * jar from Maven Central, copied once to the temporary directory. Setting the environment variable (or system
 * property) {@value #OVERRIDE} to the path of another {@code redis-server} (for example Redis 7 installed on
 * the machine) runs everything against that one instead.
 */
public final class RedisServerBinary {

    /** Environment variable or system property naming a {@code redis-server} to use instead of the shipped one. */
    public static final String OVERRIDE = "DISTLOCK_REDIS_SERVER";

    private static volatile Path resolved;

    private RedisServerBinary() {
    }

    /**
     * Returns the path of an executable {@code redis-server}, extracting the shipped binary on first use.
     *
     * @return the executable
     */
    public static Path path() {
        Path path = resolved;
        if (path == null) {
            synchronized (RedisServerBinary.class) {
                path = resolved;
                if (path == null) {
                    path = resolve();
                    resolved = path;
                }
            }
        }
        return path;
    }

    private static Path resolve() {
        String override = System.getProperty(OVERRIDE, System.getenv(OVERRIDE));
        if (override != null && !override.isBlank()) {
            Path path = Paths.get(override);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(OVERRIDE + "=" + override + " is not an executable file");
            }
            return path;
        }
        String resource = shippedResourceName();
        try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("redis-server binary " + resource
                        + " not found on the classpath (is com.github.codemonstur:embedded-redis present?)");
            }
            byte[] bytes = in.readAllBytes();
            // One copy per content, shared by every JVM on the machine; written to a temp file and moved
            // into place so that concurrent JVMs never execute a half-written binary.
            Path dir = Paths.get(System.getProperty("java.io.tmpdir"), "distlock-redis");
            Files.createDirectories(dir);
            Path target = dir.resolve(resource + "-" + Integer.toHexString(java.util.Arrays.hashCode(bytes)));
            if (!Files.isExecutable(target) || Files.size(target) != bytes.length) {
                Path tmp = Files.createTempFile(dir, "redis-server", ".tmp");
                Files.write(tmp, bytes);
                tmp.toFile().setExecutable(true, false);
                try {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
                catch (AtomicMoveNotSupportedException ex) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return target;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not extract " + resource, ex);
        }
    }

    private static String shippedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("linux")) {
            return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        throw new IllegalStateException("No shipped redis-server for " + os + "/" + arch + "; set " + OVERRIDE);
    }
}
