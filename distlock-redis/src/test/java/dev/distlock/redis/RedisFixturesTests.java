package dev.distlock.redis;

import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtureTests;

/** The redis store's fixture ({@link RedisFixtures}) does what the suites that use it need, on real servers. */
class RedisFixturesTests extends StoreFixtureTests {

    @Override
    protected StoreFixture.Provider provider() {
        return new RedisFixtures();
    }
}
