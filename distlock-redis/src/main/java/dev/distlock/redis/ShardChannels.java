package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.cluster.SlotHash;

/**
 * The sharded release channels of a key prefix: one per Redis Cluster hash slot,
 * {@code <prefix>:released:{<tag>}}, whose tag hashes to that slot. A lock's release publishes on the channel of
 * its own slot ({@code SPUBLISH} from {@code release.lua}, which may touch no other slot), and a subscriber listens
 * to every slot's channel on the master that serves the slot.
 * <p>
 * The tag of a slot is the smallest whole number whose decimal text hashes to it, so every node of every version
 * finds the same channels; the table of those numbers (64 KiB) is made once, when a sharded store first needs it.
 */
final class ShardChannels {

    /** Per slot, the number whose text hashes to it. */
    private static final class Tags {

        static final int[] OF_SLOT = tags();

        private static int[] tags() {
            int[] tags = new int[SlotHash.SLOT_COUNT];
            java.util.Arrays.fill(tags, -1);
            int missing = tags.length;
            for (int tag = 0; missing > 0; tag++) {
                int slot = SlotHash.getSlot(Integer.toString(tag));
                if (tags[slot] < 0) {
                    tags[slot] = tag;
                    missing--;
                }
            }
            return tags;
        }
    }

    /** The one channel's name and a colon: every sharded channel's name starts with it. */
    private final String prefix;

    /** Each slot's channel, made when first published on or subscribed: a release allocates none. */
    private final AtomicReferenceArray<byte[]> bySlot = new AtomicReferenceArray<>(SlotHash.SLOT_COUNT);

    /** @param keyPrefix the key prefix ({@code distlock.key-prefix}) */
    ShardChannels(String keyPrefix) {
        this.prefix = new String(LockKeys.channel(keyPrefix), StandardCharsets.UTF_8) + ":";
    }

    /** @return the channel of a lock's slot */
    byte[] of(LockKeys keys) {
        return ofSlot(SlotHash.getSlot(keys.lock));
    }

    /** @return the channel of a slot */
    byte[] ofSlot(int slot) {
        byte[] channel = bySlot.get(slot);
        if (channel == null) {
            channel = (prefix + "{" + Tags.OF_SLOT[slot] + "}").getBytes(StandardCharsets.UTF_8);
            bySlot.set(slot, channel);
        }
        return channel;
    }

    /** @return the ACL rule that grants every channel: {@code &<prefix>:released:*} */
    String aclRule() {
        return "&" + prefix + "*";
    }
}
