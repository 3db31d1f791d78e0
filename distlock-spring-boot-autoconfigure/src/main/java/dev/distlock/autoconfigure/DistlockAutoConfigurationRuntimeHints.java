package dev.distlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) of the auto-configuration. AOT processing evaluates the conditions at build
 * time, but the start-up check for a missing lock store ({@link LockServiceRequiredVerifier}) still looks up the
 * classes of every {@link LockStoreKind} by name to say which store is on the class path; in a native image a name
 * that is not registered is not found and the message would be wrong. {@link DistlockProperties} needs nothing
 * here: Spring Boot registers the binding hints of every {@code @ConfigurationProperties} bean. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
final class DistlockAutoConfigurationRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        for (LockStoreKind kind : LockStoreKind.values()) {
            kind.classNames().forEach(name -> hints.reflection().registerType(TypeReference.of(name)));
        }
    }
}
