package dev.distlock.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One line of {@code CLUSTER NODES}: how one node sees another (or itself).
 *
 * @param id the node id
 * @param address the client address, null while unknown
 * @param flags e.g. {@code myself}, {@code master}, {@code slave}, {@code fail?}, {@code fail}, {@code handshake}
 * @param masterId the master's id for a replica, {@code -} otherwise
 * @param linkState {@code connected} or {@code disconnected}
 * @param slots the slot ranges served, each {@code {first, last}}
 */
record ClusterNode(String id, @Nullable RedisAddress address, Set<String> flags, String masterId, String linkState,
        List<int[]> slots) {

    /**
     * Parses the reply of {@code CLUSTER NODES}.
     *
     * @param reply the bulk string
     * @return one entry per line
     */
    static List<ClusterNode> parse(@Nullable Object reply) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (String line : String.valueOf(reply).split("\n")) {
            String[] parts = line.trim().split(" ");
            if (parts.length < 8) {
                continue;
            }
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < parts.length; i++) {
                String range = parts[i];
                if (range.startsWith("[")) {
                    continue; // a slot being imported or migrated
                }
                int dash = range.indexOf('-');
                int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
                slots.add(new int[] { first, last });
            }
            RedisAddress address = null;
            try {
                address = RedisAddress.parse(parts[1].split(",")[0]);
            }
            catch (IllegalArgumentException ex) {
                // a node whose address is not known yet (noaddr, :0@0)
            }
            nodes.add(new ClusterNode(parts[0], address, Set.of(parts[2].split(",")), parts[3], parts[7], slots));
        }
        return nodes;
    }

    boolean isMaster() {
        return flags.contains("master");
    }

    boolean isMyself() {
        return flags.contains("myself");
    }

    /** @return true when flagged failing, or not fully known yet */
    boolean isTroubled() {
        return flags.contains("fail") || flags.contains("fail?") || flags.contains("handshake")
                || flags.contains("noaddr");
    }

    boolean serves(int slot) {
        return slots.stream().anyMatch(range -> range[0] <= slot && slot <= range[1]);
    }

    int firstSlot() {
        return slots.stream().mapToInt(range -> range[0]).min().orElse(Integer.MAX_VALUE);
    }

    int slotCount() {
        return slots.stream().mapToInt(range -> range[1] - range[0] + 1).sum();
    }
}
