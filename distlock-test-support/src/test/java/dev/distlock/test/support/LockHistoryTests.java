package dev.distlock.test.support;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The history's check of grants recorded with the moment their holder last counted on them. */
class LockHistoryTests {

    @Test
    void workPastTheLeaseOverlapsALaterGrantWhenTheHolderStoppedCountingOnItBefore() {
        LockHistory history = new LockHistory();
        // A fixed lease whose work lasts 3 s; its holder saw isHeld() false after 1 s; the next holder began at 1.5 s.
        history.record("n", "a", 1, 0, 3_000_000_000L, true, 1_000_000_000L);
        history.record("n", "b", 2, 1_500_000_000L, 1_600_000_000L, false, 1_600_000_000L);

        assertThatCode(history::assertConsistent).doesNotThrowAnyException();
    }

    @Test
    void aHolderThatStillCountedOnItAfterAnotherBeganIsFlaggedEvenIfToldByTheEndOfItsWork() {
        LockHistory history = new LockHistory();
        // isHeld() was last true at 2 s, after b began at 1.5 s; the loss was reported before the work ended.
        history.record("n", "a", 1, 0, 3_000_000_000L, true, 2_000_000_000L);
        history.record("n", "b", 2, 1_500_000_000L, 1_600_000_000L, false, 1_600_000_000L);

        assertThatThrownBy(history::assertConsistent).hasMessageContaining("counted on after another holder began")
                .hasMessageContaining("counted on until 2000000 µs");
    }

    @Test
    void aLeaderToldRevokedAfterTheNextLeaderWasGrantedIsFlagged() {
        LockHistory history = new LockHistory();
        // Terms: granted at 0, revoked at 1.2 s; the next leader was granted at 1.1 s; no loss reported before.
        history.record("leadership g", "a", 1, 0, 1_200_000_000L, false, 1_200_000_000L);
        history.record("leadership g", "b", 2, 1_100_000_000L, 2_000_000_000L, false, 2_000_000_000L);

        assertThatThrownBy(history::assertConsistent).hasMessageContaining("leadership g by a");
    }
}
