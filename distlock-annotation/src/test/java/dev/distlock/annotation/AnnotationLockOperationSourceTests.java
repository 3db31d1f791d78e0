package dev.distlock.annotation;

import java.io.File;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import dev.distlock.LockType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.core.annotation.AliasFor;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Parsing and start-up validation of {@link DistributedLock}, without a lock service.
 */
class AnnotationLockOperationSourceTests {

    private final MockEnvironment environment = new MockEnvironment().withProperty("lock.wait", "750ms")
            .withProperty("lock.group", "orders");

    private final AnnotationLockOperationSource source = new AnnotationLockOperationSource(environment,
            Set.of("numbers")::contains);

    @Test
    void defaultsLeaveOptionsUnsetAndNameTheMethod() {
        LockOperation op = operation(Valid.class, "plain");
        assertThat(op.name()).isEqualTo("Valid.plain");
        assertThat(op.keySource()).isEmpty();
        assertThat(op.options().waitTime()).isEmpty();
        assertThat(op.options().leaseTime()).isEmpty();
        assertThat(op.options().type()).isEqualTo(LockType.REENTRANT);
        assertThat(op.onTimeout()).isEqualTo(OnTimeout.THROW);
    }

    @Test
    void durationsInEveryFormat() {
        assertThat(operation(Valid.class, "zero").options().waitTime()).contains(Duration.ZERO);
        assertThat(operation(Valid.class, "simple").options().waitTime()).contains(Duration.ofSeconds(3));
        assertThat(operation(Valid.class, "simple").options().leaseTime()).contains(Duration.ofMinutes(1));
        assertThat(operation(Valid.class, "iso").options().waitTime()).contains(Duration.ofSeconds(3));
        assertThat(operation(Valid.class, "millis").options().waitTime()).contains(Duration.ofMillis(250));
        assertThat(operation(Valid.class, "placeholders").options().waitTime()).contains(Duration.ofMillis(750));
        assertThat(operation(Valid.class, "placeholders").options().leaseTime()).contains(Duration.ofSeconds(9));
        assertThat(operation(Valid.class, "placeholders").name()).isEqualTo("orders");
        assertThat(operation(Valid.class, "placeholders").options().type()).isEqualTo(LockType.WRITE);
        assertThat(operation(Valid.class, "placeholders").onTimeout()).isEqualTo(OnTimeout.SKIP);
        assertThat(operation(Valid.class, "simple").options().holdAtLeast()).as("released at return").isZero();
        assertThat(operation(Valid.class, "scheduledJob").options().holdAtLeast()).isEqualTo(Duration.ofSeconds(30));
        assertThat(operation(Valid.class, "simple").options().permits()).as("a lock").isEqualTo(1);
        assertThat(operation(Valid.class, "pool").options().permits()).isEqualTo(3);
    }

    @Test
    void parsesEveryKeyForm() {
        for (String method : List.of("byName", "byIndex", "byRoot", "byBean")) {
            assertThat(operation(Valid.class, method).keySource()).as(method).isNotEmpty();
        }
        assertThat(operation(Valid.class, "byName").keySource()).isEqualTo("#productId");
    }

    @Test
    void parsesOncePerMethod() {
        assertThat(operation(Valid.class, "byName")).isSameAs(operation(Valid.class, "byName"));
        assertThat(operation(Valid.class, "notAnnotated")).isNull();
    }

    @Test
    void findsMetaAnnotationWithAliases() {
        LockOperation op = operation(Valid.class, "composed");
        assertThat(op.name()).isEqualTo("stock");
        assertThat(op.keySource()).isEqualTo("#productId");
        assertThat(op.options().waitTime()).contains(Duration.ofSeconds(1));
    }

    @Test
    void findsAnnotationDeclaredOnInterface() {
        Method method = ReflectionUtils.findMethod(Api.class, "call", String.class);
        LockOperation op = source.getOperation(method, ApiImpl.class);
        assertThat(op.name()).isEqualTo("ApiImpl.call");
        assertThat(op.method().getDeclaringClass()).isEqualTo(ApiImpl.class);
    }

    @Test
    void invalidAnnotationsNameClassMethodAndAttribute() {
        assertInvalid("badDuration", "waitTime", "'3 parsecs' is not a duration");
        assertInvalid("negativeWait", "waitTime", "'-1s' must be zero or positive");
        assertInvalid("zeroLease", "leaseTime", "'0' must be at least 1ms");
        assertInvalid("subMillisecondLease", "leaseTime", "'500us' must be at least 1ms");
        assertInvalid("holdLongerThanLease", "holdAtLeast", "'1m' is longer than the fixed leaseTime '30s': the "
                + "lease would end first");
        assertInvalid("negativeHold", "holdAtLeast", "'-1s' must be zero or positive");
        assertInvalid("noPermits", "permits", "must be at least 1: 0");
        assertInvalid("readPermits", "permits", "3 need type REENTRANT or FAIR, not READ");
        assertInvalid("future", "return type", "java.util.concurrent.Future: only CompletableFuture and "
                + "CompletionStage are held until they complete");
        assertInvalid("publisher", "return type", "org.reactivestreams.Publisher: only Reactor's Mono and Flux");
        assertInvalid("object", "return type", "Object: the lock could not be held until an asynchronous result "
                + "completes");
        assertInvalid("badKey", "key", "'#productId +' is not a valid SpEL expression");
        assertInvalid("unknownParameter", "key", "refers to #prodId, which is not a parameter of the method "
                + "(parameters: productId)");
        assertInvalid("indexOutOfRange", "key", "refers to #p1 but the method has 1 parameter(s)");
        assertInvalid("missingBean", "key", "refers to bean 'nope', which does not exist");
        assertInvalid("missingPlaceholder", "waitTime", "Could not resolve placeholder 'lock.missing'");
        assertInvalid("badCondition", "condition", "'#items >' is not a valid SpEL expression");
        assertInvalid("unknownConditionParameter", "condition", "refers to #count, which is not a parameter of the "
                + "method (parameters: items)");
    }

    @Test
    void saysWhenParameterNamesAreNotAvailable(@TempDir Path dir) throws Exception {
        // A class compiled without -parameters, as some builds do.
        Path sourceFile = dir.resolve("NoNames.java");
        Files.writeString(sourceFile, """
                public class NoNames {
                    @dev.distlock.annotation.DistributedLock(key = "#productId")
                    public void deduct(long productId) { }
                    @dev.distlock.annotation.DistributedLock(key = "#p0")
                    public void byIndex(long productId) { }
                }
                """);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int status = compiler.run(null, null, null, "-classpath", System.getProperty("java.class.path"), "-d",
                dir.toString(), sourceFile.toString());
        assertThat(status).isZero();
        try (URLClassLoader loader = new URLClassLoader(new URL[] { dir.toUri().toURL() },
                getClass().getClassLoader())) {
            Class<?> noNames = loader.loadClass("NoNames");
            Method deduct = noNames.getMethod("deduct", long.class);
            assertThatIllegalStateException().isThrownBy(() -> source.getOperation(deduct, noNames))
                    .withMessageContaining("NoNames.deduct")
                    .withMessageContaining("parameter names of the method are not available")
                    .withMessageContaining("-parameters");
            assertThat(source.getOperation(noNames.getMethod("byIndex", long.class), noNames).keySource()).isNotEmpty();
        }
        assertThat(new File(dir.toFile(), "NoNames.class")).exists();
    }

    private void assertInvalid(String method, String attribute, String problem) {
        assertThatIllegalStateException().isThrownBy(() -> operation(Invalid.class, method))
                .withMessageStartingWith("Invalid @DistributedLock on " + Invalid.class.getName() + "." + method
                        + ": " + attribute + " ")
                .withMessageContaining(problem);
    }

    private LockOperation operation(Class<?> type, String name) {
        Method method = ReflectionUtils.findMethod(type, name, (Class<?>[]) null);
        return source.getOperation(method, type);
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(name = "stock", waitTime = "1s")
    @interface StockLock {

        @AliasFor(annotation = DistributedLock.class, attribute = "key")
        String value();
    }

    interface Api {

        @DistributedLock(key = "#id")
        String call(String id);
    }

    static class ApiImpl implements Api {

        @Override
        public String call(String id) {
            return id;
        }
    }

    static class Valid {

        @DistributedLock
        public void plain() {
        }

        @DistributedLock(waitTime = "0")
        public void zero() {
        }

        @DistributedLock(waitTime = "3s", leaseTime = "1m")
        public void simple() {
        }

        @DistributedLock(waitTime = "PT3S")
        public void iso() {
        }

        @DistributedLock(waitTime = "250")
        public void millis() {
        }

        @DistributedLock(name = "${lock.group}", waitTime = "${lock.wait}", leaseTime = "${lock.lease:9s}",
                type = LockType.WRITE, onTimeout = OnTimeout.SKIP)
        public void placeholders() {
        }

        @DistributedLock(key = "#productId")
        public void byName(long productId) {
        }

        @DistributedLock(key = "#p0 + ':' + #a1")
        public void byIndex(long productId, int quantity) {
        }

        @DistributedLock(key = "#root.methodName + #root.args[0] + #root.target + #root.method.name")
        public void byRoot(long productId) {
        }

        @DistributedLock(key = "@numbers.next()")
        public void byBean() {
        }

        @StockLock("#productId")
        public void composed(long productId) {
        }

        public void notAnnotated() {
        }

        @DistributedLock(name = "pool", permits = 3)
        public void pool() {
        }

        @DistributedLock(holdAtLeast = "30s")
        public void scheduledJob() {
        }
    }

    static class Invalid {

        @DistributedLock(condition = "#items >")
        public void badCondition(int items) {
        }

        @DistributedLock(condition = "#count > 0")
        public void unknownConditionParameter(int items) {
        }

        @DistributedLock(waitTime = "3 parsecs")
        public void badDuration() {
        }

        @DistributedLock(waitTime = "-1s")
        public void negativeWait() {
        }

        @DistributedLock(leaseTime = "0")
        public void zeroLease() {
        }

        @DistributedLock(leaseTime = "30s", holdAtLeast = "1m")
        public void holdLongerThanLease() {
        }

        @DistributedLock(holdAtLeast = "-1s")
        public void negativeHold() {
        }

        @DistributedLock(permits = 0)
        public void noPermits() {
        }

        @DistributedLock(permits = 3, type = LockType.READ)
        public void readPermits() {
        }

        @DistributedLock(key = "#productId +")
        public void badKey(long productId) {
        }

        @DistributedLock(key = "#prodId")
        public void unknownParameter(long productId) {
        }

        @DistributedLock(key = "#p1")
        public void indexOutOfRange(long productId) {
        }

        @DistributedLock(key = "@nope.next()")
        public void missingBean() {
        }

        @DistributedLock(waitTime = "${lock.missing}")
        public void missingPlaceholder() {
        }

        @DistributedLock(leaseTime = "500us")
        public void subMillisecondLease() {
        }

        @DistributedLock
        public java.util.concurrent.Future<String> future() {
            return java.util.concurrent.CompletableFuture.completedFuture("x");
        }

        @DistributedLock
        public org.reactivestreams.Publisher<String> publisher() {
            return reactor.core.publisher.Mono.just("x");
        }

        @DistributedLock
        public Object object() {
            return "x";
        }
    }
}
