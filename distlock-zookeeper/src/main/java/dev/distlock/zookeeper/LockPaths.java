package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;

/**
 * Where the nodes of a lock live: {@code <base-path>/<encoded lock name>/<node>}, and what a node's name says.
 * <p>
 * A lock name may contain anything, a ZooKeeper node name may not: {@code /} separates nodes, {@code .} and
 * {@code ..} are reserved and some characters are refused. Those are percent-encoded (UTF-8 bytes, as in URLs), so
 * the encoding is reversible and names that need none — such as {@code stock:42} — are used as they are.
 * <p>
 * Node names follow Curator's {@code InterProcessReadWriteLock}: {@code __WRIT__} for exclusive requests and
 * {@code __READ__} for readers, after Curator's protection prefix ({@code _c_<uuid>-}) and before the 10-digit
 * sequence ZooKeeper appends; so a Curator read/write lock on the same path and distlock exclude each other.
 */
final class LockPaths {

    /** The name part of an exclusive request's node (Curator's write-lock name). */
    static final String WRITE = "__WRIT__";

    /** The name part of a reader's node (Curator's read-lock name). */
    static final String READ = "__READ__";

    private static final int SEQUENCE_DIGITS = 10;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockPaths() {
    }

    /**
     * @param basePath the parent of every lock ({@code distlock.zookeeper.base-path})
     * @param name the lock name
     * @return the path of the lock's parent node
     */
    static String lockPath(String basePath, String name) {
        return (basePath.equals("/") ? "" : basePath) + "/" + encode(name);
    }

    /** @return the name as a valid node name */
    static String encode(String name) {
        if (name.equals(".") || name.equals("..")) {
            return name.replace(".", "%2E");
        }
        StringBuilder out = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (plain(c)) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(name.length() + 8).append(name, 0, i);
            }
            int end = Character.isHighSurrogate(c) && i + 1 < name.length() ? i + 2 : i + 1;
            for (byte b : name.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
            i = end - 1;
        }
        return out == null ? name : out.toString();
    }

    /** Characters ZooKeeper accepts in a node name (see its PathUtils), less the escape character itself. */
    private static boolean plain(char c) {
        return c > '\u001f' && c != '/' && c != '%' && !(c >= '\u007f' && c <= '\u009f')
                && !(c >= '\ud800' && c <= '\uf8ff') && !(c >= '\ufff0');
    }

    /** @return the name ZooKeeper gets for a new node of that kind, before protection prefix and sequence */
    static String nodeName(boolean shared) {
        return shared ? READ : WRITE;
    }

    /**
     * @param child a child node name
     * @return its sequence number, or -1 when it is no lock node (then it is ignored)
     */
    static long sequence(String child) {
        int length = child.length();
        if (length < SEQUENCE_DIGITS) {
            return -1;
        }
        long value = 0;
        for (int i = length - SEQUENCE_DIGITS; i < length; i++) {
            char c = child.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /** @return whether the child is a reader's node */
    static boolean isRead(String child) {
        return child.startsWith(READ, child.length() - SEQUENCE_DIGITS - READ.length());
    }
}
