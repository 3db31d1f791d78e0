package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.line.LinePlace;
import dev.distlock.spi.line.LinePosition;

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
 * <p>
 * A request for one of several permits names its node {@code __PERMITS_<n>__} (for example
 * {@code __PERMITS_3__0000000004}): every caller then sees from the line alone with how many permits the name is held
 * or awaited, without a node of its own to read. Curator knows no such name; a name with permits is distlock's own.
 */
final class LockPaths {

    /** The name part of an exclusive request's node (Curator's write-lock name). */
    static final String WRITE = "__WRIT__";

    /** The name part of a reader's node (Curator's read-lock name). */
    static final String READ = "__READ__";

    /** The start of the name part of a permit request's node, followed by the permits and {@link #PERMITS_END}. */
    static final String PERMITS = "__PERMITS_";

    private static final String PERMITS_END = "__";

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

    /**
     * @param request the request
     * @return the name ZooKeeper gets for the request's new node, before protection prefix and sequence: Curator's
     *         read or write name for a lock, {@code __PERMITS_<n>__} for one of several permits
     */
    static String nodeName(LockRequest request) {
        LockMode mode = request.mode();
        if (mode instanceof LockMode.Permits permits) {
            return PERMITS + permits.n() + PERMITS_END;
        }
        return mode instanceof LockMode.Shared ? READ : WRITE;
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

    /**
     * @param child a lock node's name (its {@link #sequence} is not -1)
     * @return the permits its request asked for: the number in {@code __PERMITS_<n>__}, 1 for any other node (a
     *         lock: distlock's or Curator's reader or writer, or another Curator lock on the same path)
     */
    static int permits(String child) {
        int end = child.length() - SEQUENCE_DIGITS - PERMITS_END.length();
        if (end < 0 || !child.startsWith(PERMITS_END, end)) {
            return 1;
        }
        int start = child.lastIndexOf(PERMITS, end);
        if (start < 0) {
            return 1;
        }
        int permits = 0;
        for (int i = start + PERMITS.length(); i < end; i++) {
            char c = child.charAt(i);
            if (c < '0' || c > '9' || permits > (Integer.MAX_VALUE - 9) / 10) {
                return 1;
            }
            permits = permits * 10 + (c - '0');
        }
        // "__PERMITS___" and "__PERMITS_0__" are no permit nodes distlock makes: count them as locks.
        return Math.max(permits, 1);
    }

    /**
     * @param children the children of a lock's node, in any order
     * @return its line: the lock nodes among them (the others are ignored), each with its sequence and what its
     *         name says of its request
     */
    static List<LinePlace<String>> line(List<String> children) {
        return children.stream().filter(child -> sequence(child) >= 0).map(child -> new LinePlace<>(child,
                sequence(child), permits(child) > 1 ? new LockMode.Permits(permits(child))
                        : isRead(child) ? LockMode.SHARED : LockMode.EXCLUSIVE)).toList();
    }

    /**
     * @param children the children of a lock's node
     * @param own a request's node name
     * @return where it stands
     */
    static LinePosition<String> position(List<String> children, String own) {
        return LinePosition.of(line(children), own);
    }

    /**
     * @param children the children of a lock's node
     * @return the nodes that hold the lock now ({@link LinePosition#holders})
     */
    static List<String> holders(List<String> children) {
        return LinePosition.holders(line(children)).stream().map(LinePlace::id).toList();
    }
}
