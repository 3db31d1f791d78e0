package dev.distlock.kotlin

import dev.distlock.annotation.AnnotationLockOperationSource
import dev.distlock.annotation.DistributedLock
import dev.distlock.annotation.OnTimeout
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.junit.jupiter.api.Test
import org.springframework.core.env.StandardEnvironment

/**
 * The start-up checks of `@DistributedLock` on suspend funs: what cannot be held until it is done, or would hand a
 * Kotlin caller a `null` it does not expect, fails naming the method.
 */
class SuspendingLockValidationTests {

    private val source = AnnotationLockOperationSource(StandardEnvironment()) { true }

    @Test
    fun aSuspendFunReturningAFlowIsRefused() {
        assertThatIllegalStateException().isThrownBy { operation("flow") }
            .withMessageStartingWith("Invalid @DistributedLock on ${Functions::class.java.name}.flow: return type ")
            .withMessageContaining("kotlinx.coroutines.flow.Flow")
    }

    @Test
    fun skippingASuspendFunWithANonNullResultIsRefused() {
        assertThatIllegalStateException().isThrownBy { operation("skipNonNull") }
            .withMessage("Invalid @DistributedLock on ${Functions::class.java.name}.skipNonNull: onTimeout SKIP makes "
                    + "the suspending function return null: declare its return type nullable (or Unit)")
    }

    @Test
    fun skippingASuspendFunReturningUnitOrANullableValueIsAllowed() {
        assertThat(operation("skipUnit")).isNotNull()
        assertThat(operation("skipNullable")).isNotNull()
        assertThat(operation("value")?.name()).isEqualTo("plain")
    }

    @Test
    fun theStaticBodyKotlinGeneratesForAnOpenSuspendFunIsNotAnOperation() {
        // Kotlin copies the annotations of an open suspend fun to its static synthetic "$suspendImpl" body; taking
        // that for an annotated method failed start-up ("a static method cannot be proxied"), whenever the JVM
        // listed it before the function itself.
        val methods = OpenFunctions::class.java.declaredMethods.filter { it.name.startsWith("locked") }
        assertThat(methods.map { it.name }).containsExactlyInAnyOrder("locked", "locked\$suspendImpl")
        methods.forEach {
            assertThat(source.getOperation(it, OpenFunctions::class.java)?.name())
                .`as`(it.name).isEqualTo(if (it.isSynthetic) null else "open")
        }
    }

    private fun operation(name: String) =
        source.getOperation(Functions::class.java.declaredMethods.single { it.name == name }, Functions::class.java)

    open class OpenFunctions {

        @DistributedLock(name = "open")
        open suspend fun locked(): Int = 1
    }

    class Functions {

        @DistributedLock(name = "flow")
        suspend fun flow(): Flow<Int> = flowOf(1)

        @DistributedLock(name = "skip", onTimeout = OnTimeout.SKIP)
        suspend fun skipNonNull(): String = "value"

        @DistributedLock(name = "skip", onTimeout = OnTimeout.SKIP)
        suspend fun skipUnit() {
        }

        @DistributedLock(name = "skip", onTimeout = OnTimeout.SKIP)
        suspend fun skipNullable(): String? = null

        @DistributedLock(name = "plain")
        suspend fun value(): Int = 1
    }
}
