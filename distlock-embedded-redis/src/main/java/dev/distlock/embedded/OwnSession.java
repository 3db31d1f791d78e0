package dev.distlock.embedded;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Starts a server that a test or the sample app runs (redis-server, etcd) in a session of its own, where util-linux's
 * {@code setsid} exists (Linux). A terminal's Ctrl-C signals its whole foreground process group: without this, the
 * server stopped at the same moment as the JVM that started it, while the sample, which stops its embedded server
 * only after distlock has released its locks, still needed it (releases that the store could no longer confirm).
 * {@code setsid} does not fork here (a child of the JVM leads no process group), so the process is the server
 * itself, as its pid and signals need. The JVM still stops the server when it exits.
 */
public final class OwnSession {

    private static final Optional<Path> SETSID = Stream.of("/usr/bin/setsid", "/bin/setsid").map(Path::of)
            .filter(Files::isExecutable).findFirst();

    private OwnSession() {
    }

    /**
     * @param command a server's command line
     * @return the command line that starts it in a session of its own, or the same where there is no {@code setsid}
     */
    public static List<String> command(List<String> command) {
        List<String> own = new ArrayList<>(command.size() + 1);
        SETSID.ifPresent(setsid -> own.add(setsid.toString()));
        own.addAll(command);
        return own;
    }
}
