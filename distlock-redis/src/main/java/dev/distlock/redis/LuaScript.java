package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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

    static LuaScript load(String resource, boolean multiReply) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + resource);
            }
            byte[] body = in.readAllBytes();
            return new LuaScript(resource, body, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(body)), multiReply);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * The owner as the scripts store it: {@code <owner token>|<holder identity>}, so that the holder is kept beside
     * the token wherever the token goes (lock key, waiter list, readers) for {@code describe.lua}, at no extra
     * command. The scripts only compare owners whole; the token (base64url) never contains the {@code |}, and the
     * release channel's messages drop what follows it ({@link #ownerToken}).
     *
     * @return the owner argument of a request
     */
    static byte[] owner(LockRequest request) {
        return (request.ownerToken() + '|' + request.holder()).getBytes(StandardCharsets.UTF_8);
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
