package dev.distlock.zookeeper;

import java.util.concurrent.CompletableFuture;

import dev.distlock.LockUnavailableException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Every ZooKeeper call of the lock path goes through here: sent in the background (Curator's asynchronous API), its
 * outcome a stage completed on Curator's event thread. The engine bounds the wait; a client that is not started (or
 * closed) fails at once, a client without a connection sends anyway (Curator waits for the connection and retries
 * within its own connection timeout).
 */
final class ZooKeeperCalls {

    private final CuratorFramework client;

    ZooKeeperCalls(CuratorFramework client) {
        this.client = client;
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

    /** A background call on its way. */
    interface Call {
        /** Sends the call; Curator reports its outcome to the callback. */
        void send(BackgroundCallback callback) throws Exception;
    }

    /**
     * @param call the call
     * @param what what it does, for messages
     * @param accepted result codes besides OK that the caller handles
     * @return its outcome, completed on Curator's event thread; exceptionally with a
     *         {@link LockUnavailableException} when the client is not started, the call could not be sent, or
     *         ZooKeeper answered any other result code
     */
    CompletableFuture<CuratorEvent> send(Call call, String what, Code... accepted) {
        CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
        CuratorFrameworkState state = client.getState();
        if (state != CuratorFrameworkState.STARTED) {
            reply.completeExceptionally(new LockUnavailableException("The ZooKeeper client (CuratorFramework) is "
                    + state + " (not started or closed): cannot " + what));
            return reply;
        }
        try {
            call.send((c, event) -> {
                if (isAccepted(Code.get(event.getResultCode()), accepted)) {
                    reply.complete(event);
                }
                else {
                    reply.completeExceptionally(new LockUnavailableException("ZooKeeper answered "
                            + Code.get(event.getResultCode()) + ": cannot " + what));
                }
            });
        }
        catch (Exception ex) {
            reply.completeExceptionally(new LockUnavailableException("ZooKeeper call failed: cannot " + what
                    + ": " + ex.getMessage(), ex));
        }
        return reply;
    }

    private static boolean isAccepted(Code code, Code[] accepted) {
        if (code == Code.OK) {
            return true;
        }
        for (Code expected : accepted) {
            if (code == expected) {
                return true;
            }
        }
        return false;
    }
}
