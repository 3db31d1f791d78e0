package dev.distlock.jdbc;

import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtureTests;

/** The jdbc store's fixture ({@link JdbcFixtures}) does what the suites that use it need, on real servers. */
class JdbcFixturesTests extends StoreFixtureTests {

    @Override
    protected StoreFixture.Provider provider() {
        return new JdbcFixtures();
    }
}
