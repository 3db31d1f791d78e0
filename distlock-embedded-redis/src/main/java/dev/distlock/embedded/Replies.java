package dev.distlock.embedded;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Turns the replies of {@code INFO}, {@code SENTINEL ...} and {@code ROLE} into plain Java values. */
final class Replies {

    private Replies() {
    }

    /**
     * Parses an {@code INFO} reply.
     *
     * @param reply the bulk string
     * @return field to value, without the section headers
     */
    static Map<String, String> info(@Nullable Object reply) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : String.valueOf(reply).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (!line.startsWith("#") && colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /**
     * Parses a flat array of alternating names and values, as {@code SENTINEL MASTER} returns.
     *
     * @param reply the array
     * @return name to value
     */
    static Map<String, String> pairs(@Nullable Object reply) {
        List<?> items = list(reply);
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < items.size(); i += 2) {
            fields.put(String.valueOf(items.get(i)), String.valueOf(items.get(i + 1)));
        }
        return fields;
    }

    /**
     * Parses an array of flat arrays, as {@code SENTINEL REPLICAS} returns.
     *
     * @param reply the array
     * @return one map per entry
     */
    static List<Map<String, String>> pairsList(@Nullable Object reply) {
        List<Map<String, String>> entries = new ArrayList<>();
        for (Object item : list(reply)) {
            entries.add(pairs(item));
        }
        return entries;
    }

    /**
     * Casts an array reply.
     *
     * @param reply the reply
     * @return its elements
     */
    static List<?> list(@Nullable Object reply) {
        if (reply instanceof List<?> items) {
            return items;
        }
        throw new IllegalStateException("expected an array reply, got " + reply);
    }
}
