package dev.distlock.sample.demo;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Overlaps are holds of one lock whose bodies share a moment; touching ends do not count.
 */
class OverlapMarkerTests {

    @Test
    void holdsOneAfterTheOtherDoNotOverlapEvenWhenTheyTouch() {
        List<Hold> marked = OverlapMarker.mark(List.of(hold("b", 20, 30), hold("a", 10, 20), hold("c", 31, 40)));
        assertThat(marked).extracting(Hold::instanceId).containsExactly("a", "b", "c");
        assertThat(marked).noneMatch(Hold::overlap);
    }

    @Test
    void marksEveryHoldThatSharesAMomentWithAnother() {
        // a contains b; c starts before a ends; d is alone after them.
        List<Hold> marked = OverlapMarker.mark(List.of(hold("a", 0, 100), hold("b", 10, 20), hold("c", 90, 120),
                hold("d", 200, 210)));
        assertThat(marked).extracting(Hold::instanceId).containsExactly("a", "b", "c", "d");
        assertThat(marked).extracting(Hold::overlap).containsExactly(true, true, true, false);
    }

    @Test
    void anEarlierLongHoldOverlapsALaterOneThatIsNotItsNeighbour() {
        // a overlaps c only: b sits between them in start order and overlaps nothing but a.
        List<Hold> marked = OverlapMarker.mark(List.of(hold("a", 0, 50), hold("b", 5, 6), hold("c", 40, 45)));
        assertThat(marked).allMatch(Hold::overlap);
    }

    @Test
    void waitsThatGaveUpComeLastAndAreNeverOverlaps() {
        Hold gaveUp = new Hold("x", "stock:1", 0, 5, null, 500, "timeout", false);
        List<Hold> marked = OverlapMarker.mark(List.of(gaveUp, hold("a", 10, 20)));
        assertThat(marked).extracting(Hold::instanceId).containsExactly("a", "x");
        assertThat(marked).noneMatch(Hold::overlap);
    }

    private static Hold hold(String instance, long acquiredAt, long releasedAt) {
        return new Hold(instance, "stock:1", 1, acquiredAt, acquiredAt, releasedAt, "sold", false);
    }
}
