package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.line.LinePosition;
import dev.distlock.spi.line.LinePosition.Gone;
import dev.distlock.spi.line.LinePosition.Holds;
import dev.distlock.spi.line.LinePosition.Mismatched;
import dev.distlock.spi.line.LinePosition.WaitsBehind;
import dev.distlock.spi.line.LinePosition.WaitsForAPermit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The permit rules of the line, without a server: node names that carry the permits, grants to the first
 * {@code n} nodes, and a request that disagrees with an earlier node on the permits.
 */
class NodeLinePositionTests {

    private static final String PREFIX = "_c_0f8fad5b-d9cb-469f-a165-70867728950e-";

    private static String node(String kind, int sequence) {
        return PREFIX + kind + String.format("%010d", sequence);
    }

    private static String permits(int permits, int sequence) {
        return node(LockPaths.PERMITS + permits + "__", sequence);
    }

    private static LockRequest request(LockType type, int permits) {
        return new LockRequest("pool", type, "owner", Duration.ZERO, Duration.ofSeconds(30), true, permits);
    }

    @Test
    void aPermitNodeSaysItsPermitsAndStillParsesAsALockNode() {
        String name = LockPaths.nodeName(request(LockType.REENTRANT, 3));
        assertThat(name).isEqualTo("__PERMITS_3__");
        String child = PREFIX + name + "0000000042";
        assertThat(LockPaths.sequence(child)).isEqualTo(42);
        assertThat(LockPaths.isRead(child)).isFalse();
        assertThat(LockPaths.permits(child)).isEqualTo(3);
        assertThat(LockPaths.permits(permits(12, 7))).isEqualTo(12);
        assertThat(LockPaths.nodeName(request(LockType.REENTRANT, 1))).isEqualTo(LockPaths.WRITE);
        assertThat(LockPaths.nodeName(request(LockType.READ, 1))).isEqualTo(LockPaths.READ);
        // Locks, Curator's too, and names distlock never makes count as one permit.
        for (String lock : List.of(node(LockPaths.WRITE, 1), node(LockPaths.READ, 1), "lock-0000000001",
                node("__PERMITS___", 1), node("__PERMITS_0__", 1), node("__PERMITS_x__", 1),
                node("__PERMITS_99999999999__", 1))) {
            assertThat(LockPaths.permits(lock)).as(lock).isEqualTo(1);
        }
    }

    @Test
    void theFirstPermitsNodesHoldAndTheRestWaitForAnyOfThemInArrivalOrder() {
        List<String> line = List.of(permits(2, 5), permits(2, 3), permits(2, 8), permits(2, 4), "junk");
        assertThat(LockPaths.position(line, permits(2, 3))).isInstanceOf(Holds.class);
        assertThat(LockPaths.position(line, permits(2, 4))).isInstanceOf(Holds.class);
        LinePosition<String> third = LockPaths.position(line, permits(2, 5));
        assertThat(third).isInstanceOf(WaitsForAPermit.class);
        assertThat(third).as("no single node to watch").isEqualTo(new WaitsForAPermit<String>());
        assertThat(LockPaths.position(line, permits(2, 8))).isInstanceOf(WaitsForAPermit.class);
        // Whichever holder leaves, the first waiter holds next, not the one after it.
        List<String> secondLeft = List.of(permits(2, 5), permits(2, 3), permits(2, 8));
        assertThat(LockPaths.position(secondLeft, permits(2, 5))).isInstanceOf(Holds.class);
        assertThat(LockPaths.position(secondLeft, permits(2, 8))).isInstanceOf(WaitsForAPermit.class);
        assertThat(LockPaths.position(secondLeft, permits(2, 9))).isInstanceOf(Gone.class);

        assertThat(LockPaths.holders(line)).containsExactly(permits(2, 3), permits(2, 4));
        assertThat(LockPaths.holders(List.of(permits(3, 1)))).containsExactly(permits(3, 1));
    }

    @Test
    void aRequestThatDisagreesWithAnEarlierNodeOnThePermitsIsMismatchedAndALaterOneDoesNotCount() {
        List<String> permitLine = List.of(permits(3, 1), permits(2, 2), node(LockPaths.WRITE, 3),
                node(LockPaths.READ, 4));
        assertThat(LockPaths.position(permitLine, permits(3, 1))).as("the first caller decides")
                .isInstanceOf(Holds.class);
        LinePosition<String> two = LockPaths.position(permitLine, permits(2, 2));
        assertThat(two).isInstanceOf(Mismatched.class);
        assertThat(two).isEqualTo(new Mismatched<String>(3));
        assertThat(LockPaths.position(permitLine, node(LockPaths.WRITE, 3))).as("the earliest that disagrees")
                .isEqualTo(new Mismatched<String>(3));
        assertThat(LockPaths.position(permitLine, node(LockPaths.READ, 4))).isInstanceOf(Mismatched.class);

        List<String> lockLine = List.of(node(LockPaths.READ, 1), node(LockPaths.WRITE, 2), permits(2, 3));
        LinePosition<String> permit = LockPaths.position(lockLine, permits(2, 3));
        assertThat(permit).isInstanceOf(Mismatched.class);
        assertThat(permit).as("a lock of any type counts one").isEqualTo(new Mismatched<String>(1));
        assertThat(LockPaths.position(lockLine, node(LockPaths.WRITE, 2))).as("a later one does not count")
                .isInstanceOf(WaitsBehind.class);
    }

    @Test
    void aNodeThatDisagreesWithoutHoldingIsIgnoredByTheOthersAndMismatchedItself() {
        // The first node in line holds, so its number is the name's; a later node of another number holds nothing.
        List<String> permitLine = List.of(permits(2, 1), permits(3, 2), permits(2, 3), permits(2, 4));
        LinePosition<String> wrong = LockPaths.position(permitLine, permits(3, 2));
        assertThat(wrong).isInstanceOf(Mismatched.class);
        assertThat(wrong).as("the number the name is held with").isEqualTo(new Mismatched<String>(2));
        assertThat(LockPaths.position(permitLine, permits(2, 3))).as("the second permit")
                .isInstanceOf(Holds.class);
        assertThat(LockPaths.position(permitLine, permits(2, 4)))
                .isInstanceOf(WaitsForAPermit.class);
        assertThat(LockPaths.holders(permitLine)).containsExactly(permits(2, 1), permits(2, 3));

        List<String> writers = List.of(node(LockPaths.WRITE, 1), permits(2, 2), node(LockPaths.WRITE, 3));
        LinePosition<String> writer = LockPaths.position(writers, node(LockPaths.WRITE, 3));
        assertThat(writer).isInstanceOf(WaitsBehind.class);
        assertThat(writer).as("the holder, not the wrong node").isEqualTo(new WaitsBehind<>(node(LockPaths.WRITE, 1)));
        List<String> readers = List.of(node(LockPaths.READ, 1), permits(2, 2), node(LockPaths.READ, 3));
        assertThat(LockPaths.position(readers, node(LockPaths.READ, 3))).isInstanceOf(Holds.class);
        assertThat(LockPaths.holders(readers)).containsExactly(node(LockPaths.READ, 1), node(LockPaths.READ, 3));

        // A node of another number that is first in line holds: then the others disagree with a holder.
        List<String> wrongFirst = List.of(permits(3, 2), permits(2, 3));
        assertThat(LockPaths.position(wrongFirst, permits(3, 2))).isInstanceOf(Holds.class);
        assertThat(LockPaths.position(wrongFirst, permits(2, 3))).isEqualTo(new Mismatched<String>(3));
    }
}
