package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.NamedNode;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Behind Sentinel, checks that a new lock connection reached the master: the node answers {@code ROLE} as a master,
 * and more of the Sentinels that answer in time, asked all at once, name that node as the master
 * than name another (by its run id, which holds behind NAT too; by address while a Sentinel does not know the run id
 * yet). A master that was frozen, failed over meanwhile and answers only now still
 * calls itself master until the Sentinels demote it; they no longer name it. How long the lookup took says nothing
 * about that: Lettuce asks the Sentinels one after the other, so one that does not answer, listed first, makes every
 * lookup slow.
 */
final class SentinelMasterCheck {

    private final String masterName;

    private final List<RedisURI> sentinels;

    private final long timeoutNanos;

    /**
     * @param factory the application's connection factory, Sentinel-aware
     * @param commandTimeout distlock's command timeout; the check is bounded by the larger of it and the client's own
     *        timeout ({@code spring.data.redis.timeout}), the bound Lettuce applies to its own Sentinel lookups, so
     *        that a slow but healthy setup (TLS, Sentinels in other zones, a small command timeout) is not refused. It
     *        returns as soon as a majority of the Sentinels confirmed the master, without waiting for one that is frozen.
     */
    SentinelMasterCheck(LettuceConnectionFactory factory, Duration commandTimeout) {
        RedisSentinelConfiguration config = factory.getSentinelConfiguration();
        NamedNode master = config == null ? null : config.getMaster();
        String name = master == null ? null : master.getName();
        if (config == null || name == null) {
            throw new IllegalArgumentException("SentinelMasterCheck needs a Sentinel connection factory "
                    + "(spring.data.redis.sentinel.master and nodes)");
        }
        this.masterName = name;
        LettuceClientConfiguration client = factory.getClientConfiguration();
        Duration bound = client.getCommandTimeout().compareTo(commandTimeout) > 0 ? client.getCommandTimeout()
                : commandTimeout;
        this.timeoutNanos = bound.toNanos();
        List<RedisURI> uris = new ArrayList<>();
        for (RedisNode node : config.getSentinels()) {
            // As Spring Data Redis builds the Sentinel URIs of the application's client.
            RedisURI.Builder builder = RedisURI.Builder.redis(node.getRequiredHost(), node.getRequiredPort())
                    .withSsl(client.isUseSsl()).withStartTls(client.isStartTls()).withTimeout(bound);
            if (config.getSentinelPassword().isPresent()) {
                String user = config.getSentinelUsername();
                if (user != null) {
                    builder.withAuthentication(user, config.getSentinelPassword().get());
                }
                else {
                    builder.withPassword(config.getSentinelPassword().get());
                }
            }
            RedisURI uri = builder.build();
            uri.setVerifyPeer(client.getVerifyMode());
            client.getClientName().ifPresent(uri::setClientName);
            client.getRedisCredentialsProviderFactory().ifPresent(
                    credentials -> uri.setCredentialsProvider(credentials.createSentinelCredentialsProvider(config)));
            uris.add(uri);
        }
        this.sentinels = List.copyOf(uris);
    }

    /**
     * @param client the client that opened the connection
     * @param connection the new lock connection
     * @return completes once the node reached is confirmed as the master; fails with an
     *         {@link IllegalStateException} naming why not
     */
    CompletableFuture<Void> verify(RedisClient client, StatefulRedisConnection<byte[], byte[]> connection) {
        long deadline = System.nanoTime() + timeoutNanos;
        List<CompletableFuture<Map<String, String>>> named = new ArrayList<>(sentinels.size());
        for (RedisURI sentinel : sentinels) {
            named.add(masterNamedBy(client, sentinel));
        }
        RedisAsyncCommands<byte[], byte[]> redis = connection.async();
        CompletableFuture<String> role = answer(redis.role(), "ROLE").thenApply(reply -> text(reply.get(0)));
        CompletableFuture<String> runId = answer(redis.info("server"), "INFO server")
                .thenApply(info -> field(info, "run_id:", "\r?\n"));
        // The server's end of this connection: the address the Sentinels named, unless behind NAT.
        CompletableFuture<String> address = answer(redis.clientInfo(), "CLIENT INFO")
                .thenApply(info -> field(info, "laddr=", " "));
        return role.thenCompose(reachedRole -> {
            if (!"master".equals(reachedRole)) {
                throw new IllegalStateException("the node the Sentinels named for '" + masterName + "' answers ROLE "
                        + reachedRole + ", not master");
            }
            return runId.thenCombine(address, (id, at) -> new Vote(named, id, at, deadline).decided);
        }).thenCompose(decided -> decided);
    }

    /** A reply of the node reached, failing with a message naming the command (also when it is too late). */
    private <T> CompletableFuture<T> answer(CompletionStage<T> reply, String command) {
        return reply.toCompletableFuture().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).exceptionallyCompose(ex -> {
            Throwable cause = ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
            return CompletableFuture.failedFuture(cause instanceof TimeoutException
                    ? new IllegalStateException("the node the Sentinels named for '" + masterName + "' did not "
                            + "answer " + command + " within spring.data.redis.timeout (frozen?)", cause)
                    : new IllegalStateException("the node the Sentinels named for '" + masterName + "' failed "
                            + command + ": " + cause.getMessage(), cause));
        });
    }

    /**
     * The Sentinels' say on the node reached: decided once a majority of all the Sentinels named it; else by those
     * that answered by the deadline (a Sentinel that is down or frozen has no say).
     */
    private final class Vote {

        final CompletableFuture<Void> decided = new CompletableFuture<>();

        private final String runId;

        private final String address;

        private int pending;

        private int answered;

        private int agreeing;

        private int disagreeing;

        Vote(List<CompletableFuture<Map<String, String>>> named, String runId, String address, long deadline) {
            this.runId = runId;
            this.address = address;
            this.pending = named.size();
            named.forEach(answer -> answer.whenComplete(this::count));
            CompletableFuture.delayedExecutor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                    .execute(this::decide);
        }

        private synchronized void count(@Nullable Map<String, String> master, @Nullable Throwable error) {
            pending--;
            if (decided.isDone()) {
                return;
            }
            if (error == null && master != null) {
                answered++;
                switch (names(master, runId, address)) {
                    case THIS_NODE -> agreeing++;
                    case ANOTHER_NODE -> disagreeing++;
                    case UNKNOWN -> {
                        // no say
                    }
                }
            }
            if (pending == 0 || agreeing * 2 > sentinels.size()) {
                decide();
            }
        }

        private synchronized void decide() {
            if (decided.isDone()) {
                return;
            }
            if (answered == 0) {
                decided.completeExceptionally(new IllegalStateException("no Sentinel confirmed the master of '"
                        + masterName + "' within spring.data.redis.timeout"));
            }
            else if (agreeing == 0 || agreeing <= disagreeing) {
                decided.completeExceptionally(new IllegalStateException(agreeing + " of the " + answered
                        + " Sentinels that answered name the node reached as the master of '" + masterName + "', "
                        + disagreeing + " name another (failed over?)"));
            }
            else {
                decided.complete(null);
            }
        }
    }

    /** {@code SENTINEL MASTER <name>} on one Sentinel, on a connection of its own, closed afterwards. */
    private CompletableFuture<Map<String, String>> masterNamedBy(RedisClient client, RedisURI sentinel) {
        CompletableFuture<StatefulRedisSentinelConnection<String, String>> connecting = client
                .connectSentinelAsync(StringCodec.UTF8, sentinel);
        CompletableFuture<Map<String, String>> answer = connecting
                .thenCompose(open -> open.async().master(masterName).toCompletableFuture());
        // Closed once it answered or failed, also when that is after the check gave up on it.
        connecting.thenAccept(open -> answer.whenComplete((result, error) -> open.closeAsync()));
        return answer;
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /** What a Sentinel's {@code SENTINEL MASTER} answer says about the node reached. */
    private static Naming names(Map<String, String> master, String runId, String address) {
        String named = master.getOrDefault("runid", "");
        if (!named.isEmpty()) {
            return named.equals(runId) ? Naming.THIS_NODE : Naming.ANOTHER_NODE;
        }
        // Right after a failover a Sentinel knows the new master's run id only from its next INFO (up to 10 s):
        // the address then, which can only confirm (behind NAT the addresses differ for the same node).
        String namedAddress = master.get("ip") + ":" + master.get("port");
        return namedAddress.equals(address) ? Naming.THIS_NODE : Naming.UNKNOWN;
    }

    /** @return the value of {@code name} (e.g. {@code "run_id:"}) in a reply of {@code separator}-separated fields */
    private static String field(String reply, String name, String separator) {
        for (String part : reply.trim().split(separator)) {
            if (part.startsWith(name)) {
                return part.substring(name.length()).trim();
            }
        }
        throw new IllegalStateException("no " + name + " in the reply: " + reply);
    }

    private enum Naming {
        THIS_NODE, ANOTHER_NODE, UNKNOWN
    }
}
