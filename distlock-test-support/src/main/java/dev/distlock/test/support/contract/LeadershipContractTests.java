package dev.distlock.test.support.contract;

import java.time.Duration;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.leader.Leadership;
import dev.distlock.test.support.LeadershipLog;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, leadership: one leader at a time, hand-over on a yield and a close, revocation when the lease
 * is lost or the store is gone.
 */
@StoreContract
class LeadershipContractTests extends ContractNodes {

    @Test
    void oneLeaderAtATimeAndTheLeadershipPassesOnAYieldAndAClose() {
        StoreLockService a = node();
        StoreLockService b = node();
        LeadershipLog log = new LeadershipLog();
        Leadership first = a.campaign("jobs", log.listener("a"));
        // isLeader() is true before the listener's granted runs (on a thread of its own), and a term that ends before
        // its granted started tells neither call: so each step waits for the call it expects before ending the term.
        await().atMost(Duration.ofSeconds(10)).until(() -> log.events().size() == 1);
        assertThat(first.isLeader()).isTrue();
        Leadership second = b.campaign("jobs", log.listener("b"));
        long firstToken = first.lease().orElseThrow().fencingToken();
        assertThat(a.leaderOf()).containsExactly("jobs");
        first.yieldLeadership();
        await().atMost(Duration.ofSeconds(20)).until(() -> log.events().size() == 3);
        assertThat(second.isLeader()).isTrue();
        assertThat(second.lease().orElseThrow().fencingToken()).as("the lease fences").isGreaterThan(firstToken);
        assertThat(b.leaderOf()).containsExactly("jobs");
        second.close();
        assertThat(second.isLeader()).isFalse();
        await("the first candidate campaigned again").atMost(Duration.ofSeconds(20))
                .until(() -> log.events().size() == 5);
        assertThat(first.isLeader()).isTrue();
        first.close();
        assertThat(a.leaderOf()).isEmpty();
        assertThat(log.events()).containsExactly("a granted", "a revoked", "b granted", "b revoked", "a granted",
                "a revoked");
        log.assertNeverTwoLeaders();
    }

    @Test
    void aLeaderWhoseLeaseIsLostIsRevokedAndAnotherLeads() {
        LockConfig shortLease = shortLease();
        StoreLockService a = node(shortLease);
        StoreLockService b = node(shortLease);
        LeadershipLog log = new LeadershipLog();
        Leadership first = a.campaign("lost", log.listener("a"));
        await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
        Leadership second = b.campaign("lost", log.listener("b"));
        breakLease("leader:lost");
        await().atMost(Duration.ofSeconds(20)).until(() -> log.events().contains("a revoked"));
        // The other candidate may be granted before the leader learns of the loss (the store forgot the lease
        // behind its back), never before it could: the leader is revoked, and one of them leads again.
        await().atMost(Duration.ofSeconds(20)).until(() -> first.isLeader() || second.isLeader());
        assertThat(log.events()).startsWith("a granted");
        first.close();
        second.close();
    }

    @Test
    void aLeaderIsRevokedNoLaterThanItsLeaseCanHaveExpiredWhenTheStoreIsGone() {
        Duration lease = Duration.ofMillis(1000);
        StoreLockService a = node(config().withLeaseTime(lease));
        Assumptions.assumeTrue(storeOf(a).traits().leasesExpire(), "the store's leases end with the session, which has "
                + "timings of its own");
        LeadershipLog log = new LeadershipLog();
        Leadership leadership = a.campaign("gone", log.listener("a"));
        await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
        stopStore();
        long stopped = System.nanoTime();
        try {
            await().atMost(lease.multipliedBy(4)).until(() -> log.events().contains("a revoked"));
            assertThat(Duration.ofNanos(log.revokedAt("a") - stopped)).as("revoked within the lease")
                    .isLessThanOrEqualTo(lease);
        }
        finally {
            startStore();
            leadership.close();
        }
    }

    @Test
    void aBlankLeadershipGroupIsRefused() {
        assertThatThrownBy(() -> node().campaign(" ", LeadershipLog.IGNORED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group must not be blank");
    }
}
