package dev.distlock.embedded;

import java.io.UncheckedIOException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Independent servers for Redlock: each killed, paused, resumed and restarted on its own. */
class RedisServerGroupTests {

    @Test
    void fiveIndependentServersFailOneByOne() {
        try (RedisServerGroup group = RedisServerGroup.start(5)) {
            assertThat(group.size()).isEqualTo(5);
            assertThat(group.addresses()).doesNotHaveDuplicates();
            assertThat(group.uris()).startsWith("redis://127.0.0.1:").contains(group.server(4).port() + "");
            group.server(0).call("SET", "k", "zero");
            assertThat(group.server(1).call("GET", "k")).as("independent data sets").isNull();

            RedisServerProcess killed = group.kill(1);
            assertThat(LoopbackPorts.isListening(killed.port())).isFalse();
            RedisServerProcess paused = group.pause(2);
            assertThatThrownBy(() -> paused.call("PING")).isInstanceOf(UncheckedIOException.class);
            assertThat(group.server(3).call("PING")).isEqualTo("PONG");

            group.resume(2);
            assertThat(paused.call("PING")).isEqualTo("PONG");
            assertThat(group.restart(1).call("PING")).isEqualTo("PONG");
            assertThat(killed.port()).isEqualTo(group.server(1).port());

            group.kill(3);
            group.pause(4);
            group.heal();
            assertThat(group.servers()).allSatisfy(server -> assertThat(server.call("PING")).isEqualTo("PONG"));
            assertThat(group.server(0).call("GET", "k")).isEqualTo("zero");
        }
    }

    @Test
    void sharedGroupIsStartedOnceAndHealedOnReuse() {
        RedisServerGroup group = RedisTopologies.sharedGroup();
        assertThat(group.size()).isEqualTo(RedisTopologies.SHARED_GROUP_SIZE);
        group.kill(0);
        group.pause(1);
        group.close(); // a shared group ignores close()

        assertThat(RedisTopologies.sharedGroup()).isSameAs(group);
        assertThat(group.servers()).allSatisfy(server -> assertThat(server.call("PING")).isEqualTo("PONG"));
    }
}
