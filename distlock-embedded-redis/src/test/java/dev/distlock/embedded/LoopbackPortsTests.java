package dev.distlock.embedded;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Ports for servers that tests stop and start again on the same port stay out of the kernel's ephemeral range, where
 * any outgoing connection (the test's own client reconnecting, even to itself) could take the port meanwhile.
 */
class LoopbackPortsTests {

    @Test
    void freePortsAreDistinctAndBelowTheEphemeralRange() throws Exception {
        int below = LoopbackPorts.ephemeralStart();
        assumeThat(below).as("an ephemeral range that leaves room below it").isGreaterThan(11_000);
        int[] ports = LoopbackPorts.distinct(20);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(20);
        assertThat(Arrays.stream(ports).boxed()).allSatisfy(port -> assertThat(port).isBetween(10_000, below - 1));
        assertThat(LoopbackPorts.free()).isBetween(10_000, below - 1);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(taken.getLocalPort()).as("the kernel's own choice, for contrast").isGreaterThanOrEqualTo(below);
        }
    }

    @Test
    void aClusterNodesPortLeavesItsBusPortBelowTheEphemeralRangeToo() {
        int below = LoopbackPorts.ephemeralStart();
        assumeThat(below).as("an ephemeral range that leaves room below it").isGreaterThan(21_000);
        assertThat(LoopbackPorts.freeBelow(below - 10_000) + 10_000).isBetween(20_000, below - 1);
    }
}
