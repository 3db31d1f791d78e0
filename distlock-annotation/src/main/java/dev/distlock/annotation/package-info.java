/**
 * The {@link dev.distlock.annotation.DistributedLock @DistributedLock} annotation and its Spring AOP support: an
 * operation source that parses each annotated method once, a pointcut advisor and a thin method interceptor that
 * delegates all locking to {@link dev.distlock.LockService}.
 */
@NullMarked
package dev.distlock.annotation;

import org.jspecify.annotations.NullMarked;
