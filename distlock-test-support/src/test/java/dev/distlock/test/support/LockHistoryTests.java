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

    @Test
    void twoHoldersOfANameWithTwoPermitsPassAndAThirdAtOnceIsFlagged() {
        LockHistory history = new LockHistory();
        history.permits("p", 2);
        history.record("p", "a", 1, 0, 0, 1_000_000_000L, false, 1_000_000_000L);
        history.record("p", "b", 2, 100_000_000L, 200_000_000L, 900_000_000L, false, 900_000_000L);

        assertThatCode(history::assertConsistent).doesNotThrowAnyException();

        history.record("p", "c", 3, 300_000_000L, 500_000_000L, 600_000_000L, false, 600_000_000L);

        assertThatThrownBy(history::assertConsistent).hasMessageContaining("more than 2 holders")
                .hasMessageContaining("p by c");
    }

    @Test
    void aSharedNamesHolderToldOfItsLossStopsCountingThen() {
        LockHistory history = new LockHistory();
        history.permits("p", 2);
        // a was told at 0.4 s that its lease was lost, then c began: two holders counted on it at once, not three.
        history.record("p", "a", 1, 0, 0, 1_000_000_000L, true, 400_000_000L);
        history.record("p", "b", 2, 100_000_000L, 200_000_000L, 900_000_000L, false, 900_000_000L);
        history.record("p", "c", 3, 300_000_000L, 500_000_000L, 600_000_000L, false, 600_000_000L);

        assertThatCode(history::assertConsistent).doesNotThrowAnyException();
    }

    @Test
    void aSharedNamesTokenBelowThatOfAGrantWhoseWorkBeganBeforeTheAcquireIsFlagged() {
        LockHistory history = new LockHistory();
        history.permits("p", 2);
        // Two acquires that overlap may return in either order: b (called at 0.05 s) may have the lower token.
        history.record("p", "a", 5, 0, 100_000_000L, 200_000_000L, false, 200_000_000L);
        history.record("p", "b", 4, 50_000_000L, 150_000_000L, 250_000_000L, false, 250_000_000L);

        assertThatCode(history::assertConsistent).doesNotThrowAnyException();

        // c was asked for at 0.3 s, after a's and b's work began: its token must be above both.
        history.record("p", "c", 5, 300_000_000L, 400_000_000L, 450_000_000L, false, 450_000_000L);

        assertThatThrownBy(history::assertConsistent).hasMessageContaining("token not above")
                .hasMessageContaining("two grants with one token");
    }
}
