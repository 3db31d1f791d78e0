package dev.distlock.kotlin

import dev.distlock.LockContext
import dev.distlock.LockTimeoutException
import dev.distlock.annotation.DistributedLock
import dev.distlock.annotation.OnTimeout
import dev.distlock.test.DistlockTest
import dev.distlock.test.DistlockTestRedis
import dev.distlock.test.support.LockHistory
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Import
import org.springframework.stereotype.Service
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@DistributedLock` on `suspend fun`s of a Spring Boot application whose locks live in a real (embedded) Redis:
 * exclusion across coroutines, release on return, on failure and on cancellation, waiting without blocking the
 * caller's thread, and the lock as the coroutine's `LockContext` scope.
 */
@SpringBootTest(classes = [SuspendingLockTests.App::class])
@DistlockTest
class SuspendingLockTests {

    @Autowired
    lateinit var locked: Locked

    @Autowired
    lateinit var nesting: Nesting

    @AfterEach
    fun noLockLeftHeld() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted {
            assertThat(DistlockTestRedis.call("KEYS", "distlock:{*") as List<*>).isEmpty()
        }
    }

    @Test
    fun aSuspendFunRunsExclusivelyAcrossManyCoroutines() {
        val history = LockHistory()
        runBlocking(Dispatchers.Default) {
            (1..40).map { async { locked.increment(history, "coroutine-$it") } }.awaitAll()
        }
        // The body reads, suspends and writes: without exclusion the coroutines interleave and lose increments.
        assertThat(locked.counter).isEqualTo(40)
        assertThat(locked.mostAtOnce.get()).isEqualTo(1)
        assertThat(history.grants()).hasSize(40)
        history.assertConsistent()
    }

    @Test
    fun theLockIsReleasedBeforeTheCallerResumes() {
        runBlocking {
            assertThat(locked.hold(CompletableDeferred(), CompletableDeferred(Unit))).isEqualTo("held")
            assertThat(DistlockTestRedis.call("EXISTS", GATE_KEY)).isEqualTo(0L)
            assertThat(locked.tryOnce()).isEqualTo("got it")
        }
    }

    @Test
    fun theLockIsReleasedWhenTheSuspendFunThrows() {
        assertThatExceptionOfType(IllegalStateException::class.java)
            .isThrownBy { runBlocking { locked.fail() } }.withMessage("failed under the lock")
        assertThat(DistlockTestRedis.call("EXISTS", GATE_KEY)).isEqualTo(0L)
        assertThat(runBlocking { locked.tryOnce() }).isEqualTo("got it")
    }

    @Test
    fun theLockIsReleasedWhenTheCallerTimesOut() {
        val entered = CompletableDeferred<Unit>()
        assertThatExceptionOfType(TimeoutCancellationException::class.java).isThrownBy {
            runBlocking {
                withTimeout(300) {
                    locked.holdForever(entered)
                }
            }
        }
        assertThat(entered.isCompleted).isTrue()
        awaitReleased()
        assertThat(runBlocking { locked.tryOnce() }).isEqualTo("got it")
    }

    @Test
    fun theLockIsReleasedWhenTheCallersJobIsCancelled() {
        runBlocking(Dispatchers.Default) {
            val entered = CompletableDeferred<Unit>()
            val job = launch { locked.holdForever(entered) }
            entered.await()
            assertThat(DistlockTestRedis.call("EXISTS", GATE_KEY)).isEqualTo(1L)
            job.cancelAndJoin()
            awaitReleased()
            assertThat(locked.tryOnce()).isEqualTo("got it")
        }
    }

    @Test
    fun aCallerCancelledWhileWaitingLeavesNoLockBehind() {
        runBlocking(Dispatchers.Default) {
            val entered = CompletableDeferred<Unit>()
            val gate = CompletableDeferred<Unit>()
            val holder = async { locked.hold(entered, gate) }
            entered.await()
            assertThatExceptionOfType(TimeoutCancellationException::class.java).isThrownBy {
                runBlocking { withTimeout(200) { locked.waitLong() } }
            }
            gate.complete(Unit)
            assertThat(holder.await()).isEqualTo("held")
            awaitReleased()
            assertThat(locked.tryOnce()).isEqualTo("got it")
        }
    }

    @Test
    fun waitingForTheLockDoesNotBlockTheCallersThread() {
        Executors.newSingleThreadExecutor { Thread(it, "the-only-thread") }.asCoroutineDispatcher().use { single ->
            runBlocking(single) {
                val entered = CompletableDeferred<Unit>()
                val gate = CompletableDeferred<Unit>()
                val holder = async { locked.hold(entered, gate) }
                entered.await()
                // Twenty callers wait for the lock on the only thread. If waiting blocked it, the gate below would
                // never be opened: each waiter would time out (LockTimeoutException after 5s) instead.
                val waiters = (1..20).map { async { locked.waitShortly() } }
                gate.complete(Unit)
                assertThat(holder.await()).isEqualTo("held")
                // (In coroutine debug mode, which -ea turns on, the thread's name has " @coroutine#n" appended.)
                assertThat(waiters.awaitAll().map { it.substringBefore(" @") }).containsOnly("the-only-thread")
            }
        }
    }

    @Test
    fun theSuspendFunSeesItsLockAsLockContextWhereverItResumes() {
        runBlocking(Dispatchers.Default) {
            val seen = nesting.outer()
            assertThat(seen.outerToken).isPositive()
            assertThat(seen.afterSuspending).isEqualTo(seen.outerToken)
            // The nested call re-entered the outer lock (waitTime 0 would have failed otherwise): same token.
            assertThat(seen.innerToken).isEqualTo(seen.outerToken)
            assertThat(seen.afterInner).isEqualTo(seen.outerToken)
        }
        assertThat(LockContext.current()).isEmpty()
    }

    @Test
    fun aSkippedSuspendFunReturnsNull() {
        runBlocking(Dispatchers.Default) {
            val entered = CompletableDeferred<Unit>()
            val gate = CompletableDeferred<Unit>()
            val holder = async { locked.hold(entered, gate) }
            entered.await()
            assertThat(locked.skipIfBusy()).isNull()
            gate.complete(Unit)
            holder.await()
            assertThat(locked.skipIfBusy()).isEqualTo("ran")
        }
    }

    @Test
    fun aTimedOutSuspendFunThrowsLockTimeoutException() {
        runBlocking(Dispatchers.Default) {
            val entered = CompletableDeferred<Unit>()
            val gate = CompletableDeferred<Unit>()
            val holder = async { locked.hold(entered, gate) }
            entered.await()
            assertThatExceptionOfType(LockTimeoutException::class.java)
                .isThrownBy { runBlocking { locked.tryOnce() } }
            gate.complete(Unit)
            holder.await()
        }
    }

    private fun awaitReleased() {
        await().atMost(Duration.ofSeconds(5)).until { DistlockTestRedis.call("EXISTS", GATE_KEY) == 0L }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Locked::class, Nesting::class, Inner::class)
    class App

    @Service
    class Locked {

        var counter = 0

        val mostAtOnce = AtomicInteger()

        private val running = AtomicInteger()

        @DistributedLock(name = "kt-counter", waitTime = "20s")
        suspend fun increment(history: LockHistory, node: String) {
            val handle = LockContext.current().orElseThrow()
            val start = System.nanoTime()
            mostAtOnce.accumulateAndGet(running.incrementAndGet()) { a, b -> maxOf(a, b) }
            val read = counter
            delay(2)
            counter = read + 1
            running.decrementAndGet()
            history.record(handle.name(), node, handle.fencingToken(), start, System.nanoTime(), false)
        }

        @DistributedLock(name = GATE, waitTime = "5s")
        suspend fun hold(entered: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>): String {
            entered.complete(Unit)
            gate.await()
            return "held"
        }

        @DistributedLock(name = GATE, waitTime = "5s")
        suspend fun holdForever(entered: CompletableDeferred<Unit>): String {
            entered.complete(Unit)
            awaitCancellation()
        }

        @DistributedLock(name = GATE, waitTime = "5s")
        suspend fun fail(): String {
            delay(1)
            throw IllegalStateException("failed under the lock")
        }

        @DistributedLock(name = GATE, waitTime = "0")
        suspend fun tryOnce(): String = "got it"

        @DistributedLock(name = GATE, waitTime = "30s")
        suspend fun waitLong(): String = "got it late"

        /** @return the thread the function ran on */
        @DistributedLock(name = GATE, waitTime = "5s")
        suspend fun waitShortly(): String = Thread.currentThread().name

        @DistributedLock(name = GATE, waitTime = "0", onTimeout = OnTimeout.SKIP)
        suspend fun skipIfBusy(): String? = "ran"
    }

    /** What a locked suspend fun saw of its lock's fencing token. */
    data class Seen(val outerToken: Long, val afterSuspending: Long, val innerToken: Long, val afterInner: Long)

    @Service
    class Nesting(private val inner: Inner) {

        @DistributedLock(name = "kt-nested", waitTime = "5s")
        suspend fun outer(): Seen {
            val token = LockContext.current().orElseThrow().fencingToken()
            delay(5) // resumes on any thread of Dispatchers.Default
            val afterSuspending = LockContext.current().orElseThrow().fencingToken()
            val innerToken = inner.sameLock()
            val afterInner = LockContext.current().orElseThrow().fencingToken()
            return Seen(token, afterSuspending, innerToken, afterInner)
        }
    }

    @Service
    class Inner {

        @DistributedLock(name = "kt-nested", waitTime = "0")
        suspend fun sameLock(): Long {
            delay(1)
            return LockContext.current().orElseThrow().fencingToken()
        }
    }

    companion object {
        const val GATE = "kt-gate"
        const val GATE_KEY = "distlock:{kt-gate}"
    }
}
