/**
 * The store contract and crash suites, one class per capability, each run once per store fixture on the class
 * path ({@link dev.distlock.test.support.contract.StoreContract}): a store module that lists a
 * {@link dev.distlock.test.support.StoreFixture.Provider} runs them through the root POM's {@code store-contract}
 * profile, with no test class of its own.
 */
@NullMarked
package dev.distlock.test.support.contract;

import org.jspecify.annotations.NullMarked;
