package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code redis-server} command line of one run, and the process it starts. The defaults come first and the
 * caller's arguments last, because {@code redis-server} lets a later argument win: a test can override any default.
 * The server runs in a session of its own ({@link OwnSession}), out of reach of a terminal's Ctrl-C.
 */
final class ServerLaunch {

    private ServerLaunch() {
    }

    /**
     * Starts {@code redis-server} in the foreground, its output appended to the work directory's log.
     *
     * @param workDir the server's work directory, holding its config file
     * @param sentinel true for a Sentinel
     * @param port the loopback port
     * @param args the arguments given at creation, then the ones for this run only
     * @param environment variables added to the process's environment
     * @return the started process (not necessarily answering yet)
     * @throws UncheckedIOException when the binary cannot be run
     */
    static Process start(ServerWorkDir workDir, boolean sentinel, int port, List<String> args,
            Map<String, String> environment) {
        List<String> command = new ArrayList<>();
        command.add(RedisServerBinary.path().toString());
        command.add(workDir.configFile().toString());
        if (sentinel) {
            command.add("--sentinel");
        }
        command.addAll(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--daemonize", "no",
                "--dir", workDir.dir().toString()));
        if (!sentinel) {
            // No automatic snapshots: a restart loads only what a test SAVEd (or its AOF), never a stray snapshot.
            command.addAll(List.of("--save", "", "--appendonly", "no"));
        }
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(OwnSession.command(command)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.logFile()));
        builder.environment().putAll(environment);
        try {
            return builder.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command, ex);
        }
    }
}
