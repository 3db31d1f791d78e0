package dev.distlock.campaign;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.LockHandle;
import dev.distlock.test.InMemoryLockService;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the campaign's leadership worker reports, on the order in which the library may call it: {@code revoked}
 * comes on the candidate's thread and may come before {@code granted}, running on another, has recorded its term.
 */
class LeadershipWorkerTests {

    @Test
    void aTermRevokedBeforeGrantedRecordedItIsNeverReportedAndTheNextTermIsWhole() {
        List<String> told = new CopyOnWriteArrayList<>();
        LeadershipWorker worker = new LeadershipWorker(1, new LockLoop.LostLeases(), new LeadershipWorker.Sink() {

            @Override
            public void granted(long token, long grantedNanos) {
                told.add("granted " + token);
            }

            @Override
            public void revoked(long token, long grantedNanos, long revokedNanos, long countedOnUntilNanos,
                    boolean lost) {
                told.add("revoked " + token);
            }
        });
        try (InMemoryLockService service = new InMemoryLockService()) {
            LockHandle first = service.lock("leadership campaign");
            worker.revoked(LeadershipWorker.GROUP);
            worker.granted(LeadershipWorker.GROUP, first);
            assertThat(told).as("a term the worker was told revoked before it began").isEmpty();
            first.unlock();

            LockHandle second = service.lock("leadership campaign");
            worker.granted(LeadershipWorker.GROUP, second);
            worker.revoked(LeadershipWorker.GROUP);
            assertThat(told).containsExactly("granted " + second.fencingToken(), "revoked " + second.fencingToken());
        }
    }
}
