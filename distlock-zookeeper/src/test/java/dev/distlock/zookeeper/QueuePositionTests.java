package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import dev.distlock.zookeeper.QueuePosition.Standing;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The permit rules of the line, without a server: node names that carry the permits, grants to the first
 * {@code n} nodes, and a request that disagrees with an earlier node on the permits.
 */
class QueuePositionTests {

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
        assertThat(QueuePosition.of(line, permits(2, 3)).standing()).isEqualTo(Standing.GRANTED);
        assertThat(QueuePosition.of(line, permits(2, 4)).standing()).isEqualTo(Standing.GRANTED);
        QueuePosition third = QueuePosition.of(line, permits(2, 5));
        assertThat(third.standing()).isEqualTo(Standing.WAITING_FOR_A_PERMIT);
        assertThat(third.predecessor()).as("no single node to watch").isNull();
        assertThat(QueuePosition.of(line, permits(2, 8)).standing()).isEqualTo(Standing.WAITING_FOR_A_PERMIT);
        // Whichever holder leaves, the first waiter holds next, not the one after it.
        List<String> secondLeft = List.of(permits(2, 5), permits(2, 3), permits(2, 8));
        assertThat(QueuePosition.of(secondLeft, permits(2, 5)).standing()).isEqualTo(Standing.GRANTED);
        assertThat(QueuePosition.of(secondLeft, permits(2, 8)).standing()).isEqualTo(Standing.WAITING_FOR_A_PERMIT);
        assertThat(QueuePosition.of(secondLeft, permits(2, 9)).standing()).isEqualTo(Standing.GONE);

        assertThat(QueuePosition.holders(line)).containsExactly(permits(2, 3), permits(2, 4));
        assertThat(QueuePosition.holders(List.of(permits(3, 1)))).containsExactly(permits(3, 1));
    }

    @Test
    void aRequestThatDisagreesWithAnEarlierNodeOnThePermitsIsMismatchedAndALaterOneDoesNotCount() {
        List<String> permitLine = List.of(permits(3, 1), permits(2, 2), node(LockPaths.WRITE, 3),
                node(LockPaths.READ, 4));
        assertThat(QueuePosition.of(permitLine, permits(3, 1)).standing()).as("the first caller decides")
                .isEqualTo(Standing.GRANTED);
        QueuePosition two = QueuePosition.of(permitLine, permits(2, 2));
        assertThat(two.standing()).isEqualTo(Standing.MISMATCHED);
        assertThat(two.heldWith()).isEqualTo(3);
        assertThat(QueuePosition.of(permitLine, node(LockPaths.WRITE, 3)).heldWith()).as("the earliest that disagrees")
                .isEqualTo(3);
        assertThat(QueuePosition.of(permitLine, node(LockPaths.READ, 4)).standing()).isEqualTo(Standing.MISMATCHED);

        List<String> lockLine = List.of(node(LockPaths.READ, 1), node(LockPaths.WRITE, 2), permits(2, 3));
        QueuePosition permit = QueuePosition.of(lockLine, permits(2, 3));
        assertThat(permit.standing()).isEqualTo(Standing.MISMATCHED);
        assertThat(permit.heldWith()).as("a lock of any type counts one").isEqualTo(1);
        assertThat(QueuePosition.of(lockLine, node(LockPaths.WRITE, 2)).standing()).as("a later one does not count")
                .isEqualTo(Standing.WAITING);
    }

    @Test
    void aNodeThatDisagreesWithoutHoldingIsIgnoredByTheOthersAndMismatchedItself() {
        // The first node in line holds, so its number is the name's; a later node of another number holds nothing.
        List<String> permitLine = List.of(permits(2, 1), permits(3, 2), permits(2, 3), permits(2, 4));
        QueuePosition wrong = QueuePosition.of(permitLine, permits(3, 2));
        assertThat(wrong.standing()).isEqualTo(Standing.MISMATCHED);
        assertThat(wrong.heldWith()).as("the number the name is held with").isEqualTo(2);
        assertThat(QueuePosition.of(permitLine, permits(2, 3)).standing()).as("the second permit")
                .isEqualTo(Standing.GRANTED);
        assertThat(QueuePosition.of(permitLine, permits(2, 4)).standing())
                .isEqualTo(Standing.WAITING_FOR_A_PERMIT);
        assertThat(QueuePosition.holders(permitLine)).containsExactly(permits(2, 1), permits(2, 3));

        List<String> writers = List.of(node(LockPaths.WRITE, 1), permits(2, 2), node(LockPaths.WRITE, 3));
        QueuePosition writer = QueuePosition.of(writers, node(LockPaths.WRITE, 3));
        assertThat(writer.standing()).isEqualTo(Standing.WAITING);
        assertThat(writer.predecessor()).as("the holder, not the wrong node").isEqualTo(node(LockPaths.WRITE, 1));
        List<String> readers = List.of(node(LockPaths.READ, 1), permits(2, 2), node(LockPaths.READ, 3));
        assertThat(QueuePosition.of(readers, node(LockPaths.READ, 3)).standing()).isEqualTo(Standing.GRANTED);
        assertThat(QueuePosition.holders(readers)).containsExactly(node(LockPaths.READ, 1), node(LockPaths.READ, 3));

        // A node of another number that is first in line holds: then the others disagree with a holder.
        List<String> wrongFirst = List.of(permits(3, 2), permits(2, 3));
        assertThat(QueuePosition.of(wrongFirst, permits(3, 2)).standing()).isEqualTo(Standing.GRANTED);
        assertThat(QueuePosition.of(wrongFirst, permits(2, 3)).heldWith()).isEqualTo(3);
    }
}
