package dev.distlock.embedded;

import java.nio.charset.StandardCharsets;

/**
 * The hash slot of a key in Redis Cluster: CRC16 (XMODEM) of the key, or of its hash tag (the part between the
 * first <code>{</code> and the next <code>}</code> when that part is not empty), modulo 16384.
 */
public final class ClusterSlots {

    /** Number of hash slots of a Redis Cluster. */
    public static final int SLOT_COUNT = 16384;

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xFFFF;
        }
    }

    private ClusterSlots() {
    }

    /**
     * Returns the slot of a key.
     *
     * @param key the key's bytes
     * @return 0 to 16383
     */
    public static int slot(byte[] key) {
        int start = 0;
        int end = key.length;
        for (int open = 0; open < key.length; open++) {
            if (key[open] == '{') {
                for (int close = open + 1; close < key.length; close++) {
                    if (key[close] == '}') {
                        if (close > open + 1) {
                            start = open + 1;
                            end = close;
                        }
                        break;
                    }
                }
                break;
            }
        }
        return crc16(key, start, end) % SLOT_COUNT;
    }

    /**
     * Returns the slot of a key given as text (UTF-8).
     *
     * @param key the key
     * @return 0 to 16383
     */
    public static int slot(String key) {
        return slot(key.getBytes(StandardCharsets.UTF_8));
    }

    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }
}
