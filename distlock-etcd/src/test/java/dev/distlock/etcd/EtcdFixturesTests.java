package dev.distlock.etcd;

import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtureTests;

/** The etcd store's fixture ({@link EtcdFixtures}) does what the suites that use it need, on real servers. */
class EtcdFixturesTests extends StoreFixtureTests {

    @Override
    protected StoreFixture.Provider provider() {
        return new EtcdFixtures();
    }
}
