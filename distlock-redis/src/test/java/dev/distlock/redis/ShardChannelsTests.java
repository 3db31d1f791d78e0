package dev.distlock.redis;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sharded release channels: each slot's channel hashes to that slot, so {@code release.lua} may publish a
 * lock's release on its own slot's channel; and the names are the same on every node of every version (nodes of two
 * versions must meet on them during a rolling upgrade).
 */
class ShardChannelsTests {

    private final ShardChannels channels = new ShardChannels("app");

    @Test
    void everySlotsChannelHashesToThatSlot() {
        for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
            assertThat(SlotHash.getSlot(channels.ofSlot(slot))).as("slot %d", slot).isEqualTo(slot);
        }
    }

    @Test
    void aLocksChannelIsTheChannelOfItsKeysSlot() {
        for (String name : new String[] { "order:42", "}x", "{c}", "stock" }) {
            LockKeys keys = LockKeys.of("app", name);
            assertThat(SlotHash.getSlot(channels.of(keys))).as(name).isEqualTo(SlotHash.getSlot(keys.lock));
        }
    }

    @Test
    void theNamesAreFixed() {
        assertThat(new String(channels.ofSlot(0), StandardCharsets.UTF_8)).isEqualTo("app:released:{3560}");
        assertThat(new String(channels.ofSlot(SlotHash.SLOT_COUNT - 1), StandardCharsets.UTF_8))
                .startsWith("app:released:{").endsWith("}");
        assertThat(channels.aclRule()).isEqualTo("&app:released:*");
        assertThat(new String(channels.ofSlot(0), StandardCharsets.UTF_8)).as("never the one channel's name")
                .isNotEqualTo(new String(LockKeys.channel("app"), StandardCharsets.UTF_8));
    }
}
