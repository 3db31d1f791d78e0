package dev.distlock.embedded;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The key-to-slot function against the values of the Redis Cluster specification. */
class ClusterSlotsTests {

    @Test
    void crc16OfTheSpecificationsTestVector() {
        byte[] bytes = "123456789".getBytes();
        assertThat(ClusterSlots.crc16(bytes, 0, bytes.length)).isEqualTo(0x31C3);
        assertThat(ClusterSlots.slot("123456789")).isEqualTo(0x31C3);
    }

    @Test
    void hashTags() {
        assertThat(ClusterSlots.slot("{user1000}.following")).isEqualTo(ClusterSlots.slot("{user1000}.followers"))
                .isEqualTo(ClusterSlots.slot("user1000"));
        assertThat(ClusterSlots.slot("foo{}{bar}")).as("empty tag: whole key").isEqualTo(ClusterSlots.slot(
                "foo{}{bar}".getBytes()));
        assertThat(ClusterSlots.slot("foo{{bar}}zap")).isEqualTo(ClusterSlots.slot("{bar"));
        assertThat(ClusterSlots.slot("foo{bar}{zap}")).isEqualTo(ClusterSlots.slot("bar"));
        assertThat(ClusterSlots.slot("")).isZero();
    }
}
