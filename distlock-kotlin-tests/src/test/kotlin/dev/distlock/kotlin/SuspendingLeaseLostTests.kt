package dev.distlock.kotlin

import dev.distlock.LeaseLostException
import dev.distlock.annotation.DistributedLock
import dev.distlock.core.LockAdministration
import dev.distlock.test.DistlockTest
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Import
import org.springframework.stereotype.Service

/**
 * `@DistributedLock(onLeaseLost = "interrupt")` on a `suspend fun`, on a real (embedded) Redis: a lease lost while
 * the function is suspended cancels its coroutine, and the caller gets `LeaseLostException`.
 */
@SpringBootTest(classes = [SuspendingLeaseLostTests.App::class])
@DistlockTest
class SuspendingLeaseLostTests {

    @Autowired
    lateinit var worker: Worker

    @Autowired
    lateinit var admin: LockAdministration

    @Test
    fun aLostLeaseCancelsTheCoroutineAndTheCallerGetsLeaseLostException() {
        val cancelled = CompletableDeferred<Throwable>()
        assertThatExceptionOfType(LeaseLostException::class.java).isThrownBy {
            // Bounded: without the stop the call would wait for good.
            runBlocking(Dispatchers.Default) { withTimeout(10_000) {
                val entered = CompletableDeferred<Unit>()
                val call = async { worker.untilStopped(entered, cancelled) }
                entered.await()
                admin.forceRelease("kt-lost")
                call.await()
            } }
        }.withMessageContaining("'kt-lost'")
        assertThat(runBlocking { cancelled.await() }).`as`("the function's coroutine was cancelled")
            .isInstanceOf(CancellationException::class.java)
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Worker::class)
    class App

    @Service
    class Worker {

        @DistributedLock(name = "kt-lost", waitTime = "5s", onLeaseLost = "interrupt")
        suspend fun untilStopped(entered: CompletableDeferred<Unit>, cancelled: CompletableDeferred<Throwable>): String {
            entered.complete(Unit)
            try {
                awaitCancellation()
            } catch (ex: CancellationException) {
                cancelled.complete(ex)
                throw ex
            }
        }
    }
}
