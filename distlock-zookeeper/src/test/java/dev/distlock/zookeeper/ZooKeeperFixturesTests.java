package dev.distlock.zookeeper;

import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtureTests;

/** The zookeeper store's fixture ({@link ZooKeeperFixtures}) does what the suites that use it need, on real servers. */
class ZooKeeperFixturesTests extends StoreFixtureTests {

    @Override
    protected StoreFixture.Provider provider() {
        return new ZooKeeperFixtures();
    }
}
