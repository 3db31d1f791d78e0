package dev.distlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.distlock.LockType;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method while holding a distributed lock.
 * <p>
 * The lock name is {@code name + ":" + key}, or just {@code name} when {@code key} is empty. The lock is taken
 * before the method is called and released after it returned or threw; for a method returning
 * {@code CompletableFuture}, {@code CompletionStage}, {@code Mono} or {@code Flux} it is held until the returned
 * value completes, fails or is cancelled, and for a Kotlin {@code suspend fun} until it returns or throws or its
 * caller's coroutine is cancelled (the caller's thread is not blocked while the lock is awaited; this needs
 * kotlinx-coroutines-reactor). Inside the method, {@link dev.distlock.LockContext#current()} is the handle of this
 * lock (e.g. for its fencing token); in a {@code suspend fun} on whatever thread it resumes.
 * <p>
 * Works on public methods of Spring beans (declared on the class or on an interface it implements, with JDK or
 * CGLIB proxies) and as a meta-annotation: a composed annotation annotated with {@code @DistributedLock} may
 * redeclare its attributes with {@code @AliasFor(annotation = DistributedLock.class)}. Every annotated method is
 * checked at start-up: an unparseable key or condition, a bad duration, a negative time or an unknown
 * {@code onLeaseLost} fails the application context, naming the class, method and attribute.
 * <p>
 * The lock advice runs outside Spring's transaction advice by default ({@code distlock.aspect-order}), so a
 * {@code @Transactional} method commits before the lock is released.
 * <p>
 * Meta-annotated with {@code @Reflective}, so that Spring's AOT processing registers the annotated methods of every
 * bean for reflection: they work in AOT-processed applications and native images without hints of the
 * application's own. The types that key expressions reach on the method's arguments are the application's to
 * register (as for Spring's cache annotations).
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(DistributedLockReflectiveProcessor.class)
public @interface DistributedLock {

    /**
     * The lock group. Default {@code "<SimpleClassName>.<methodName>"} of the bean class. {@code ${...}}
     * placeholders are resolved from the Environment at start-up.
     *
     * @return the lock name, or "" for the default
     */
    String name() default "";

    /**
     * A SpEL expression over the method call, appended to the name: {@code #paramName}, {@code #p0} /
     * {@code #a0}, {@code #root.method}, {@code #root.args}, {@code #root.target}, {@code #root.targetClass},
     * {@code #root.methodName}, bean references {@code @beanName}. "" = one lock for the method. An expression
     * that evaluates to {@code null} or a blank string throws {@link dev.distlock.LockException} and the method
     * is not called.
     *
     * @return the key expression, or ""
     */
    String key() default "";

    /**
     * How long to wait for the lock: "" = {@code distlock.wait-time}; "0" = try once; otherwise a Spring Boot
     * duration ({@code "3s"}, {@code "500ms"}, {@code "PT3S"}, a plain number of milliseconds) or a
     * {@code ${placeholder}} resolving to one.
     *
     * @return the wait time
     */
    String waitTime() default "";

    /**
     * The lease: "" = a lease of {@code distlock.lease-time} renewed by the watchdog while the method runs; a
     * duration (same formats as {@link #waitTime()}) = a fixed lease that is not renewed, so the lock expires
     * after it even if the method is still running.
     *
     * @return the lease time
     */
    String leaseTime() default "";

    /**
     * How long after its acquisition the lock stays held at least, even when the method returns earlier: ""
     * (default) releases it when the method returns. For scheduled jobs that must not run again on another instance
     * within that time, whatever the instances' clocks say. The caller does not wait for it: the method returns,
     * the watchdog stops renewing, and the lock is released when the time is up. A watchdog lease is made at least
     * that long, so the lock stays held also when the instance dies after the method returned (on a store whose
     * leases expire; on ZooKeeper and etcd a watchdog lock ends with the instance's session). Same formats as
     * {@link #waitTime()}; longer than a fixed {@link #leaseTime()} fails start-up.
     *
     * @return the time the lock is held at least, or ""
     */
    String holdAtLeast() default "";

    /**
     * How many callers may hold the name at once (a semaphore with leases): 1 (default) is a lock. Each holder has
     * its own lease and fencing token; a crashed holder's permit is free again within its lease. Every caller of a
     * name must use the same number. Below 1, or above 1 with type {@code READ} or {@code WRITE}, fails start-up.
     * Needs a store with permits: Redis (standalone, Sentinel and Cluster), JDBC, ZooKeeper and etcd have them;
     * Memcached and the quorum stores, Redlock among them, have none, and there a method with permits fails start-up.
     *
     * @return the number of permits
     */
    int permits() default 1;

    /**
     * A SpEL expression over the method call, with the same variables as {@link #key()}, evaluated before the lock
     * is taken: {@code true} locks the call, {@code false} runs the method without the lock (as if it were not
     * annotated). "" (default) locks every call. Checked at start-up like the key. An expression that fails or gives
     * neither true nor false throws {@link dev.distlock.LockException} and the method is not called. Evaluated once
     * per call, when the method is called (for a {@code Mono}/{@code Flux}, at assembly, not on each subscription).
     *
     * @return the condition expression, or ""
     */
    String condition() default "";

    /**
     * What the caller sees when the lease is lost while the method runs: "" (default) = {@code distlock.on-lease-lost};
     * otherwise {@code "log"}, {@code "throw"} or {@code "interrupt"} (any case), or a {@code ${placeholder}} resolving
     * to one. With {@code "interrupt"} the work is stopped at the loss and the caller gets
     * {@link dev.distlock.LeaseLostException}: a blocking method's thread is interrupted (while it is still in the
     * method), a {@code Mono}/{@code Flux} subscription is cancelled, a {@code suspend fun}'s coroutine is cancelled,
     * and a returned {@code CompletionStage} completes exceptionally at once (the method's own future, when it is a
     * {@code Future}, is cancelled with an interrupt). Any other value fails start-up.
     *
     * @return the lease-lost policy, or ""
     */
    String onLeaseLost() default "";

    /**
     * @return the lock type
     */
    LockType type() default LockType.REENTRANT;

    /**
     * @return what happens when the lock is not acquired within the wait time
     */
    OnTimeout onTimeout() default OnTimeout.THROW;
}
