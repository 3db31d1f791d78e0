package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;

import dev.distlock.spi.LockRequest;

/**
 * A Lua script loaded from a {@code .lua} resource next to this class, run with {@code EVALSHA} (one round trip)
 * and sent in full with {@code EVAL} only when the server does not know it yet (after a restart, a failover or
 * {@code SCRIPT FLUSH}).
 *
 * @param name the resource name, for messages
 * @param body the script
 * @param sha1 its SHA-1, as {@code EVALSHA} wants it
 * @param multiReply whether it returns a list (else an integer)
 */
record LuaScript(String name, byte[] body, String sha1, boolean multiReply) {

    static final LuaScript ACQUIRE = load("acquire.lua", false);

    static final LuaScript RELEASE = load("release.lua", false);

    static final LuaScript RENEW = load("renew.lua", true);

    /**
     * Several calls of {@link #ACQUIRE} and {@link #RELEASE} in one ({@code batch.lua}, {@link ScriptBatcher}): each
     * script's text becomes a function of its own {@code KEYS} and {@code ARGV}, so a batched call runs the same code.
     */
    static final LuaScript BATCH = of("batch.lua", true, String.join("\n",
            "local acquire = function(KEYS, ARGV)", text(ACQUIRE), "end",
            "local release = function(KEYS, ARGV)", text(RELEASE), "end",
            text(read("batch.lua"))).getBytes(StandardCharsets.UTF_8));

    static LuaScript load(String resource, boolean multiReply) {
        return of(resource, multiReply, read(resource));
    }

    private static LuaScript of(String name, boolean multiReply, byte[] body) {
        try {
            return new LuaScript(name, body, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(body)), multiReply);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static byte[] read(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + resource);
            }
            return in.readAllBytes();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static String text(LuaScript script) {
        return text(script.body());
    }

    private static String text(byte[] body) {
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * @param base64 a holder identity as older versions stored it beside the owner token (now {@link HolderKeys})
     * @return the identity, or the text as it is when it is not base64url
     */
    static String holder(String base64) {
        try {
            return new String(Base64.getUrlDecoder().decode(base64), StandardCharsets.UTF_8);
        }
        catch (IllegalArgumentException ex) {
            return base64;
        }
    }

    /**
     * @param owner an owner as the scripts store it (an older version's is the bare token)
     * @return its owner token
     */
    static String ownerToken(String owner) {
        int bar = owner.indexOf('|');
        return bar < 0 ? owner : owner.substring(0, bar);
    }

    /** @return the decimal digits of the value, as script arguments are sent */
    static byte[] arg(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** @return whether the failure (or one of its causes) is Redis' "NOSCRIPT" error */
    static boolean isNoScript(Throwable failure) {
        return RedisErrors.hasMessage(failure, "NOSCRIPT");
    }

    @Override
    public String toString() {
        return "LuaScript[" + name + ", " + sha1 + "]";
    }
}
