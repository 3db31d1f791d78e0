/**
 * What distlock's own tests share and applications never use (applications use {@code distlock-test}): the store
 * contract suite (package {@code dev.distlock.test.support.contract}, which every store's fixtures pass),
 * {@link dev.distlock.test.support.LockHistory} for fault tests, the fault tools
 * ({@link dev.distlock.test.support.FaultProxy}, {@link dev.distlock.test.support.HolderJvm}), the store fixture SPI
 * ({@link dev.distlock.test.support.StoreFixture}, implemented once in each store's test-jar, found through
 * {@link dev.distlock.test.support.StoreFixtures}) with its check (in the contract suite),
 * and a second store "module" for the stores' store-selection tests ({@link dev.distlock.test.support.AnotherStore}).
 */
@NullMarked
package dev.distlock.test.support;

import org.jspecify.annotations.NullMarked;
