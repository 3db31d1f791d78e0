package dev.distlock.spi.line;

import java.util.List;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.line.LinePosition.Gone;
import dev.distlock.spi.line.LinePosition.Holds;
import dev.distlock.spi.line.LinePosition.Mismatched;
import dev.distlock.spi.line.LinePosition.WaitsBehind;
import dev.distlock.spi.line.LinePosition.WaitsForAPermit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where an entry stands in a listed line, for each mode: pure value logic, so the rules every line store keeps
 * (exclusive, shared, permits, refusing another number of permits) are checked without a server.
 */
class LinePositionTests {

    private static LinePlace<String> writer(long order) {
        return new LinePlace<>("w" + order, order, LockMode.EXCLUSIVE);
    }

    private static LinePlace<String> reader(long order) {
        return new LinePlace<>("r" + order, order, LockMode.SHARED);
    }

    private static LinePlace<String> permit(int n, long order) {
        return new LinePlace<>("p" + n + "-" + order, order, new LockMode.Permits(n));
    }

    @Test
    void anExclusiveEntryHoldsAtTheHeadAndElseWaitsBehindItsImmediatePredecessor() {
        List<LinePlace<String>> line = List.of(writer(7), reader(3), writer(1), reader(5));
        assertThat(LinePosition.of(line, "w1")).isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(line, "w7")).as("the reader just before it, not the holder")
                .isEqualTo(new WaitsBehind<>("r5"));
        assertThat(LinePosition.of(List.of(writer(2), writer(4)), "w4")).isEqualTo(new WaitsBehind<>("w2"));
        assertThat(LinePosition.holders(line)).containsExactly(writer(1));
    }

    @Test
    void readersShareTheHeadAndWaitOnlyBehindTheNearestWriterBeforeThem() {
        List<LinePlace<String>> line = List.of(reader(1), reader(2), writer(3), reader(4), writer(5), reader(6));
        assertThat(LinePosition.of(line, "r1")).isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(line, "r2")).isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(line, "w3")).isEqualTo(new WaitsBehind<>("r2"));
        assertThat(LinePosition.of(line, "r4")).isEqualTo(new WaitsBehind<>("w3"));
        assertThat(LinePosition.of(line, "r6")).as("the nearest writer, not the first")
                .isEqualTo(new WaitsBehind<>("w5"));
        assertThat(LinePosition.holders(line)).containsExactly(reader(1), reader(2));
    }

    @Test
    void theFirstNPermitEntriesHoldAndTheRestWaitForAnyOfThemToLeave() {
        List<LinePlace<String>> line = List.of(permit(2, 9), permit(2, 4), permit(2, 6), permit(2, 2));
        assertThat(LinePosition.of(line, "p2-2")).isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(line, "p2-4")).isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(line, "p2-6")).isEqualTo(new WaitsForAPermit<String>());
        assertThat(LinePosition.of(line, "p2-9")).isEqualTo(new WaitsForAPermit<String>());
        assertThat(LinePosition.holders(line)).containsExactly(permit(2, 2), permit(2, 4));
        // Whichever holder leaves, the first waiter is let in, not the one behind it.
        List<LinePlace<String>> secondLeft = List.of(permit(2, 9), permit(2, 6), permit(2, 2));
        assertThat(LinePosition.of(secondLeft, "p2-6")).isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(secondLeft, "p2-9")).isEqualTo(new WaitsForAPermit<String>());
    }

    @Test
    void anEntryThatDisagreesWithTheFirstOnThePermitsIsMismatchedAndIgnoredByTheOthers() {
        List<LinePlace<String>> line = List.of(permit(3, 1), permit(2, 2), writer(3), permit(3, 4), permit(3, 5),
                permit(3, 6));
        assertThat(LinePosition.of(line, "p2-2")).isEqualTo(new Mismatched<String>(3));
        assertThat(LinePosition.of(line, "w3")).as("a lock counts one permit").isEqualTo(new Mismatched<String>(3));
        assertThat(LinePosition.of(line, "p3-5")).as("the disagreeing entries hold nothing")
                .isEqualTo(new Holds<String>());
        assertThat(LinePosition.of(line, "p3-6")).isEqualTo(new WaitsForAPermit<String>());
        assertThat(LinePosition.holders(line)).containsExactly(permit(3, 1), permit(3, 4), permit(3, 5));

        List<LinePlace<String>> locks = List.of(writer(1), permit(2, 2), writer(3));
        assertThat(LinePosition.of(locks, "p2-2")).isEqualTo(new Mismatched<String>(1));
        assertThat(LinePosition.of(locks, "w3")).as("behind the holder, not the wrong entry")
                .isEqualTo(new WaitsBehind<>("w1"));
    }

    @Test
    void anEntryMissingFromTheLineIsGoneAndAnEmptyLineHasNoHolders() {
        assertThat(LinePosition.of(List.of(writer(1)), "w2")).isEqualTo(new Gone<String>());
        assertThat(LinePosition.<String>of(List.of(), "w2")).isEqualTo(new Gone<String>());
        assertThat(LinePosition.<String>holders(List.of())).isEmpty();
    }
}
