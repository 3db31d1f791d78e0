/**
 * What distlock's own tests share and applications never use (applications use {@code distlock-test}): a second
 * store "module" for the stores' store-selection tests ({@link dev.distlock.test.support.AnotherStore}).
 */
@NullMarked
package dev.distlock.test.support;

import org.jspecify.annotations.NullMarked;
