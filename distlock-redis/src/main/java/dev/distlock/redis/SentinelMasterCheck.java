package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

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
     * @throws IllegalStateException naming why the node reached is not the master the Sentinels name
     */
    void verify(RedisClient client, StatefulRedisConnection<byte[], byte[]> connection) {
        long deadline = System.nanoTime() + timeoutNanos;
        List<CompletableFuture<Map<String, String>>> named = new ArrayList<>(sentinels.size());
        for (RedisURI sentinel : sentinels) {
            named.add(masterNamedBy(client, sentinel));
        }
        RedisAsyncCommands<byte[], byte[]> redis = connection.async();
        CompletableFuture<List<Object>> role = redis.role().toCompletableFuture();
        CompletableFuture<String> info = redis.info("server").toCompletableFuture();
        CompletableFuture<String> clientInfo = redis.clientInfo().toCompletableFuture();
        String reachedRole = text(await(role, deadline, "ROLE").get(0));
        if (!"master".equals(reachedRole)) {
            throw new IllegalStateException("the node the Sentinels named for '" + masterName + "' answers ROLE "
                    + reachedRole + ", not master");
        }
        String runId = field(await(info, deadline, "INFO server"), "run_id:", "\r?\n");
        // The server's end of this connection: the address the Sentinels named, unless behind NAT.
        String address = field(await(clientInfo, deadline, "CLIENT INFO"), "laddr=", " ");
        // Decided once a majority of all the Sentinels named it; else by those that answered within the timeout.
        int answered = 0;
        int agreeing = 0;
        int disagreeing = 0;
        List<CompletableFuture<Map<String, String>>> pending = new ArrayList<>(named);
        while (!pending.isEmpty() && agreeing * 2 <= sentinels.size()) {
            try {
                CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new))
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (ExecutionException ex) {
                // a Sentinel that is down has no say (removed below)
            }
            catch (TimeoutException ex) {
                break; // a Sentinel that is frozen has no say
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while checking the master of '" + masterName + "'", ex);
            }
            for (var it = pending.iterator(); it.hasNext();) {
                CompletableFuture<Map<String, String>> answer = it.next();
                if (answer.isDone()) {
                    it.remove();
                    if (!answer.isCompletedExceptionally()) {
                        answered++;
                        switch (names(answer.join(), runId, address)) {
                            case THIS_NODE -> agreeing++;
                            case ANOTHER_NODE -> disagreeing++;
                            case UNKNOWN -> {
                                // no say
                            }
                        }
                    }
                }
            }
        }
        if (answered == 0) {
            throw new IllegalStateException("no Sentinel confirmed the master of '" + masterName + "' within "
                    + "spring.data.redis.timeout");
        }
        if (agreeing == 0 || agreeing <= disagreeing) {
            throw new IllegalStateException(agreeing + " of the " + answered + " Sentinels that answered name the "
                    + "node reached as the master of '" + masterName + "', " + disagreeing + " name another (failed "
                    + "over?)");
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

    private <T> T await(CompletableFuture<T> reply, long deadline, String command) {
        try {
            return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw new IllegalStateException("the node the Sentinels named for '" + masterName + "' failed " + command
                    + ": " + cause.getMessage(), cause);
        }
        catch (TimeoutException ex) {
            throw new IllegalStateException("the node the Sentinels named for '" + masterName + "' did not answer "
                    + command + " within spring.data.redis.timeout (frozen?)", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while checking the master of '" + masterName + "'", ex);
        }
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
