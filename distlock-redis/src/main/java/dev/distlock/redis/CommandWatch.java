package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

/**
 * How a command sent on the lock connection is watched ({@link LockConnection#watch}): its reply says the connection
 * works, and one left unanswered may show that it is stuck. {@link LettuceNode} sends its own commands on the same
 * connection, so it has them watched the same way.
 */
@FunctionalInterface
interface CommandWatch {

    /**
     * @param command a command's reply
     * @param <T> the reply's type
     * @return the reply, completing once the connection's state has been updated
     */
    <T> CompletableFuture<T> watch(CompletableFuture<T> command);
}
