package dev.distlock.annotation;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) for what the {@link DistributedLock @DistributedLock} support reaches by
 * reflection whatever the application's beans are: the {@code #root} object of key expressions, whose accessors
 * SpEL calls reflectively ({@code #root.methodName}, {@code #root.args}, ...), and the optional types that
 * {@link ReturnKind} looks up by name to tell reactive return types apart. The annotated methods themselves are
 * covered per bean by {@link DistributedLockReflectiveProcessor}. Registered in {@code META-INF/spring/aot.factories}.
 */
final class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

    /**
     * Looked up with {@code Class.forName} by {@link ReturnKind}: in a native image a name that is not registered
     * is not found, and reactive methods would be locked as plain ones.
     */
    static final String[] OPTIONAL_TYPES = { "reactor.core.publisher.Flux", "org.reactivestreams.Publisher",
            "kotlinx.coroutines.flow.Flow" };

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerType(LockExpressionRootObject.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        for (String type : OPTIONAL_TYPES) {
            hints.reflection().registerType(TypeReference.of(type));
        }
    }
}
