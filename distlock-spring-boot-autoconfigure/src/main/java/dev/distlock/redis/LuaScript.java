package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * A Lua script loaded from a {@code .lua} resource next to this class, run with {@code EVALSHA} (one round trip)
 * and sent in full with {@code EVAL} only when the server does not know it yet (after a restart or failover).
 */
final class LuaScript {

    private final byte[] body;

    private final String sha1;

    private final ScriptOutputType outputType;

    private LuaScript(byte[] body, ScriptOutputType outputType) {
        this.body = body;
        this.outputType = outputType;
        try {
            this.sha1 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    static LuaScript load(String resource, ScriptOutputType outputType) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + resource);
            }
            return new LuaScript(in.readAllBytes(), outputType);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    <T> CompletableFuture<T> run(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[][] keys, byte[]... args) {
        CompletableFuture<T> sha = commands.<T>evalsha(sha1, outputType, keys, args).toCompletableFuture();
        return sha.exceptionallyCompose(ex -> isNoScript(ex)
                ? commands.<T>eval(body, outputType, keys, args).toCompletableFuture()
                : CompletableFuture.failedFuture(ex));
    }

    private static boolean isNoScript(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof RedisNoScriptException) {
                return true;
            }
        }
        return false;
    }

    static byte[] arg(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "LuaScript[" + sha1 + "]";
    }
}
