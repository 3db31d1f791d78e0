package dev.distlock.zookeeper;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.LockUnavailableException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Every ZooKeeper call of the lock path goes through here: sent in the background (Curator's asynchronous API) and
 * awaited for at most {@code distlock.command-timeout}, so that no caller waits on Curator's own retries longer
 * than that; a client without a connection fails closed without sending anything.
 */
final class ZooKeeperCalls {

    private final CuratorFramework client;

    private final long timeoutMillis;

    ZooKeeperCalls(CuratorFramework client, long timeoutMillis) {
        this.client = client;
        this.timeoutMillis = timeoutMillis;
    }

    /** @return a deadline for a call started now */
    long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** @return whether the client has a live connection to the ensemble now */
    boolean connected() {
        return client.getState() == CuratorFrameworkState.STARTED && client.getZookeeperClient().isConnected();
    }

    /** @return the id of the session the client is connected with now, or 0 when it is not connected */
    long currentSession() {
        try {
            return connected() ? client.getZookeeperClient().getZooKeeper().getSessionId() : 0;
        }
        catch (Exception ex) {
            return 0;
        }
    }

    /**
     * Waits until the client is connected, at most until the deadline.
     *
     * @throws LockUnavailableException when it is not (ensemble down, client not started or closed)
     */
    void requireConnected(long deadline, String what) {
        CuratorFrameworkState state = client.getState();
        if (state != CuratorFrameworkState.STARTED) {
            throw new LockUnavailableException("The ZooKeeper client (CuratorFramework) is " + state
                    + " (not started or closed): cannot " + what);
        }
        if (client.getZookeeperClient().isConnected()) {
            return;
        }
        try {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left > 0 && client.blockUntilConnected((int) left, TimeUnit.MILLISECONDS)) {
                return;
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("Interrupted while waiting for ZooKeeper to " + what, ex);
        }
        throw new LockUnavailableException("Not connected to ZooKeeper (" + client.getZookeeperClient()
                .getCurrentConnectionString() + ") within distlock.command-timeout (" + timeoutMillis
                + " ms): cannot " + what);
    }

    /** A background call on its way. */
    interface Call {
        /** Sends the call; Curator reports its outcome to the callback. */
        void send(BackgroundCallback callback) throws Exception;
    }

    /**
     * @param call the call
     * @param what what it does, for messages
     * @return its outcome, completed on Curator's event thread (or exceptionally when it could not be sent)
     */
    CompletableFuture<CuratorEvent> send(Call call, String what) {
        CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
        try {
            call.send((c, event) -> reply.complete(event));
        }
        catch (Exception ex) {
            reply.completeExceptionally(new LockUnavailableException("ZooKeeper call failed: cannot " + what
                    + ": " + ex.getMessage(), ex));
        }
        return reply;
    }

    /**
     * Waits for an outcome until the deadline.
     *
     * @param accepted result codes besides OK that the caller handles
     * @return the event
     * @throws LockUnavailableException on a timeout or any other result code
     */
    CuratorEvent await(CompletableFuture<CuratorEvent> reply, long deadline, String what, Code... accepted) {
        CuratorEvent event;
        try {
            event = reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            throw new LockUnavailableException("ZooKeeper did not answer within distlock.command-timeout ("
                    + timeoutMillis + " ms): cannot " + what, ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw cause instanceof LockUnavailableException unavailable ? unavailable
                    : new LockUnavailableException("ZooKeeper call failed: cannot " + what, cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("Interrupted while waiting for ZooKeeper to " + what, ex);
        }
        Code code = Code.get(event.getResultCode());
        if (code == Code.OK) {
            return event;
        }
        for (Code expected : accepted) {
            if (code == expected) {
                return event;
            }
        }
        throw new LockUnavailableException("ZooKeeper answered " + code + ": cannot " + what);
    }
}
