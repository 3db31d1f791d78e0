package dev.distlock.benchmarks;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JVMs the harness started and has not stopped yet ({@link ChildProcesses}, {@link SampleInstances}): a
 * shutdown hook kills them if the harness exits first, so that no child outlives a failed or interrupted run.
 */
final class ChildJvms {

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "kill-child-jvms"));
    }

    private ChildJvms() {
    }

    /** @param process a JVM just started: killed at exit unless {@link #stopped} before */
    static void started(Process process) {
        RUNNING.add(process);
    }

    /** @param process a JVM the harness stopped itself */
    static void stopped(Process process) {
        RUNNING.remove(process);
    }
}
