package dev.distlock.benchmarks;

import java.util.List;

import dev.distlock.benchmarks.FlashSaleFigures.Entry;
import dev.distlock.benchmarks.FlashSaleFigures.HandOff;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Workload K's figures on a timeline written by hand: three holds on two instances in a window of 1,000 µs, a wait
 * that gave up, and an unlocked sale's overlapping bodies.
 */
class FlashSaleFiguresTests {

    /**
     * Instance a holds [100, 300] (body [120, 280]); a again [310, 500] (body [330, 480]); b [520, 900] (body
     * [540, 880]); a wait on b gave up at 950. Window [0, 1000].
     */
    private static final List<Entry> LOCKED = List.of(
            new Entry("b", "sold", 520L, 540L, 880, 900L),
            new Entry("a", "restock", 100L, 120L, 280, 300L),
            new Entry("b", "timeout", null, null, 950, null),
            new Entry("a", "sold", 310L, 330L, 480, 500L));

    @Test
    void lockBusyFractionIsTheHeldTimeOverTheWallTime() {
        // (300-100) + (500-310) + (900-520) = 200 + 190 + 380 = 770 of 1000.
        assertThat(FlashSaleFigures.lockBusyFraction(LOCKED, 0, 1000)).isCloseTo(0.77, within(1e-12));
    }

    @Test
    void bodyBusyFractionIsTheBodyTimeOverTheWallTime() {
        // (280-120) + (480-330) + (880-540) = 160 + 150 + 340 = 650 of 1000; the wait that gave up ran no body.
        assertThat(FlashSaleFigures.bodyBusyFraction(LOCKED, 0, 1000)).isCloseTo(0.65, within(1e-12));
    }

    @Test
    void overlappingBodiesCountOnceAndTheWindowClipsThem() {
        // Unlocked bodies [100, 400], [200, 300], [350, 600] and [900, 1200]: union [100, 600] + [900, 1000] inside
        // the window = 600 of 1000.
        List<Entry> unlocked = List.of(new Entry("a", "sold", null, 100L, 400, null),
                new Entry("b", "sold", null, 200L, 300, null), new Entry("c", "sold", null, 350L, 600, null),
                new Entry("a", "sold", null, 900L, 1200, null));
        assertThat(FlashSaleFigures.bodyBusyFraction(unlocked, 0, 1000)).isCloseTo(0.6, within(1e-12));
        assertThat(FlashSaleFigures.lockBusyFraction(unlocked, 0, 1000)).isZero();
    }

    @Test
    void handOffsPairEachHoldWithTheOneGrantedBefore() {
        List<HandOff> handOffs = FlashSaleFigures.handOffs(LOCKED);

        assertThat(handOffs).containsExactly(new HandOff(false, 280, 300, 310, 330),
                new HandOff(true, 480, 500, 520, 540));
        HandOff same = handOffs.get(0);
        assertThat(same.gap()).isEqualTo(10);
        assertThat(same.bodyEndToRelease()).isEqualTo(20);
        assertThat(same.grantToBodyStart()).isEqualTo(20);
        assertThat(same.bodyGap()).isEqualTo(50);
        assertThat(handOffs.get(1).gap()).isEqualTo(20);
    }

    @Test
    void aGrantBeforeTheReleaseReturnedIsANegativeGap() {
        // Redis hands the lock over inside the release script: b can be granted before a's release call returns.
        List<HandOff> handOffs = FlashSaleFigures.handOffs(List.of(new Entry("a", "sold", 100L, 110L, 190, 230L),
                new Entry("b", "sold", 220L, 240L, 300, 320L)));

        assertThat(handOffs).singleElement().satisfies(h -> {
            assertThat(h.crossInstance()).isTrue();
            assertThat(h.gap()).isEqualTo(-10);
        });
    }

    @Test
    void eachHandOffGetsTheLastPublishBetweenTheBodyEndAndTheGrant() {
        List<HandOff> handOffs = List.of(new HandOff(true, 480, 500, 520, 540),
                new HandOff(false, 600, 610, 615, 620), new HandOff(true, 700, 720, 760, 770));
        // 470 is before the first body ended; 505 and 512 both fall in the first hand-off: the later one woke the
        // grant. None falls in [600, 615]. 760 is exactly the third grant.
        long[] published = {760, 512, 470, 505};

        assertThat(FlashSaleFigures.publishSeen(handOffs, published)).containsExactly(512, Long.MIN_VALUE, 760);
    }

    @Test
    void percentilesAreNearestRank() {
        long[] gaps = FlashSaleFigures.sorted(List.of(new HandOff(true, 0, 0, 40, 50), new HandOff(true, 0, 0, 10, 20),
                new HandOff(true, 0, 0, 30, 40), new HandOff(true, 0, 0, 20, 30)), HandOff::gap);

        assertThat(gaps).containsExactly(10, 20, 30, 40);
        assertThat(FlashSaleFigures.percentile(gaps, 0.5)).isEqualTo(20);
        assertThat(FlashSaleFigures.percentile(gaps, 0.9)).isEqualTo(40);
        assertThat(FlashSaleFigures.percentile(gaps, 0.99)).isEqualTo(40);
        long[] hundred = new long[100];
        for (int i = 0; i < 100; i++) {
            hundred[i] = i + 1;
        }
        assertThat(FlashSaleFigures.percentile(hundred, 0.5)).isEqualTo(50);
        assertThat(FlashSaleFigures.percentile(hundred, 0.9)).isEqualTo(90);
        assertThat(FlashSaleFigures.percentile(hundred, 0.99)).isEqualTo(99);
        assertThat(FlashSaleFigures.percentile(new long[0], 0.5)).isNaN();
    }
}
