package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What every store's fixture must do for the suites that use it, checked on the store's real server(s): found
 * through {@link java.util.ServiceLoader} under its id, its nodes lock against each other,
 * {@link StoreFixture#breakLease} frees a held name, {@link StoreFixture#stopServer} makes calls fail closed and
 * {@link StoreFixture#startServer} brings locking back.
 */
@StoreContract
class FixtureContractTests extends ContractNodes {

    @Test
    void theFixtureIsFoundThroughServiceLoaderUnderItsId() {
        assertThat(StoreFixtures.contractIds().contains(fixture().id())
                || StoreFixtures.namedContractIds().contains(fixture().id())).as("listed by its provider").isTrue();
        assertThat(fixture().label()).isNotBlank();
        assertThat(fixture().setup()).isNotBlank();
    }

    @Test
    void nodesLockBrokenLeasesFreeTheNameAndAStoppedServerFailsClosedUntilStarted() throws Exception {
        check(fixture());
    }

    private static void check(StoreFixture fixture) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        StoreLockService first = plainNode(fixture, resources);
        StoreLockService second = plainNode(fixture, resources);
        try {
            LockHandle held = first.lock("fixture-check");
            assertThat(second.tryLock("fixture-check", NO_WAIT)).as("held by the first node").isEmpty();

            fixture.breakLease("fixture-check");
            await("the second node takes the broken lease's name").atMost(Duration.ofSeconds(20))
                    .until(() -> tookAndReleased(second, "fixture-check"));
            held.unlock();

            fixture.stopServer();
            assertThatThrownBy(() -> second.lock("fixture-down", NO_WAIT))
                    .isInstanceOf(LockUnavailableException.class);
            fixture.startServer();
            await("locking again once the server is back").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> tookAndReleased(second, "fixture-up"));
        }
        finally {
            first.close();
            second.close();
            for (AutoCloseable resource : resources) {
                resource.close();
            }
        }
    }

    private static boolean tookAndReleased(StoreLockService node, String name) {
        Optional<LockHandle> handle = node.tryLock(name, NO_WAIT);
        handle.ifPresent(LockHandle::unlock);
        return handle.isPresent();
    }

    private static StoreLockService plainNode(StoreFixture fixture, List<AutoCloseable> resources) {
        StoreLockService node = new StoreLockService(fixture.newStore(resources), LockConfig.defaults(),
                LockListener.NONE);
        node.start();
        return node;
    }
}
