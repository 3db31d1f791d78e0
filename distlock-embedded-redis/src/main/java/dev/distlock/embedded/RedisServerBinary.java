package dev.distlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Locates a {@code redis-server} executable.
 * <p>
 * By default it is the real Redis 6.2 binary shipped inside the {@code com.github.codemonstur:embedded-redis}
 * jar from Maven Central, copied once to the temporary directory. Two settings, each an environment variable or a
 * system property, change that:
 * <ul>
 * <li>{@value #VERSION}{@code =7.4} takes the Redis 7.4 binary shipped inside {@code cn.ponfee:embedded-redis}.
 * That jar is on the class path only when the Maven profile {@code redis-7.4} is active, which the same
 * environment variable activates, so the default build never downloads it.</li>
 * <li>{@value #OVERRIDE} names any other {@code redis-server} (for example Debian's Redis 7.0) and wins over
 * {@value #VERSION}.</li>
 * </ul>
 */
public final class RedisServerBinary {

    /** Environment variable or system property naming a {@code redis-server} to use instead of the shipped one. */
    public static final String OVERRIDE = "DISTLOCK_REDIS_SERVER";

    /** Environment variable or system property choosing a shipped Redis version: {@code 6.2} (default) or {@code 7.4}. */
    public static final String VERSION = "DISTLOCK_REDIS_VERSION";

    /** The version used when {@value #VERSION} is not set. */
    public static final String DEFAULT_VERSION = "6.2";

    private static final Pattern VERSION_OUTPUT = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");

    private static volatile @Nullable String version;

    private static volatile @Nullable Path resolved;

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

    /**
     * Returns the version of the binary {@link #path()} runs, from {@code redis-server --version}; tests use it for
     * commands that only some versions have.
     *
     * @return e.g. {@code "6.2.11"} or {@code "7.4.1"}
     */
    public static String version() {
        String v = version;
        if (v == null) {
            v = askVersion(path());
            version = v;
        }
        return v;
    }

    /**
     * Tells whether the binary is at least the given major.minor version.
     *
     * @param major the major version
     * @param minor the minor version
     * @return true when {@link #version()} is that version or later
     */
    public static boolean isAtLeast(int major, int minor) {
        String[] parts = version().split("\\.");
        int actualMajor = Integer.parseInt(parts[0]);
        int actualMinor = Integer.parseInt(parts[1]);
        return actualMajor > major || (actualMajor == major && actualMinor >= minor);
    }

    private static String askVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            Matcher matcher = VERSION_OUTPUT.matcher(output);
            if (!matcher.find()) {
                throw new IllegalStateException(binary + " --version printed no version: " + output);
            }
            return matcher.group(1);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static @Nullable String setting(String name) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static Path resolve() {
        String override = setting(OVERRIDE);
        if (override != null) {
            Path path = Paths.get(override);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(OVERRIDE + "=" + override + " is not an executable file");
            }
            return path;
        }
        String wanted = Objects.requireNonNullElse(setting(VERSION), DEFAULT_VERSION);
        String resource = shippedResourceName(wanted);
        try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("redis-server binary " + resource + " not found on the class path: "
                        + jarHint(wanted));
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

    private static String jarHint(String wanted) {
        if ("7.4".equals(wanted)) {
            return "Redis 7.4 comes from cn.ponfee:embedded-redis, added by the Maven profile redis-7.4 of "
                    + "distlock-embedded-redis; the profile is active when the environment variable " + VERSION
                    + "=7.4 is set for the Maven build, or with -Predis-7.4";
        }
        return "is com.github.codemonstur:embedded-redis present?";
    }

    private static String shippedResourceName(String wanted) {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        boolean linux = os.contains("linux");
        if (!linux && !os.contains("mac")) {
            throw new IllegalStateException("No shipped redis-server for " + os + "/" + arch + "; set " + OVERRIDE);
        }
        switch (wanted) {
            case "6.2":
                if (linux) {
                    return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
                }
                return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
            case "7.4":
                // Binaries of cn.ponfee:embedded-redis:1.6 (Redis 7.4.1, statically linked on linux-amd64).
                return "redis-server-7.4.1-" + (linux ? "linux" : "darwin") + (arm ? "-arm64" : "-amd64");
            default:
                throw new IllegalStateException(VERSION + "=" + wanted + " is not shipped: use 6.2 or 7.4, or set "
                        + OVERRIDE + " to the path of a redis-server");
        }
    }
}
