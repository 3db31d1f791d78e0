package dev.distlock.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

import dev.distlock.LockService;
import dev.distlock.annotation.DistributedLockMethodValidator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Fails application start-up when {@code @DistributedLock} methods exist but there is no {@link LockService} to lock
 * them with (no usable lock store): locking is never silently off unless {@code distlock.enabled=false}.
 */
final class LockServiceRequiredVerifier implements SmartInitializingSingleton {

    private final DistributedLockMethodValidator validator;

    private final ObjectProvider<LockService> lockServices;

    LockServiceRequiredVerifier(DistributedLockMethodValidator validator, ObjectProvider<LockService> lockServices) {
        this.validator = validator;
        this.lockServices = lockServices;
    }

    @Override
    public void afterSingletonsInstantiated() {
        validator.annotatedMethod().ifPresent(method -> {
            if (lockServices.getIfAvailable() == null) {
                List<LockStoreRegistration> present = LockStoreSelection
                        .present(LockServiceRequiredVerifier.class.getClassLoader());
                throw new LockStoreSelectionException("@DistributedLock on " + method + " needs a lock store, but no "
                        + "LockService could be configured: " + reason(present) + ". Set distlock.enabled=false to "
                        + "run annotated methods without locks.", action(present));
            }
        });
    }

    private static String action(List<LockStoreRegistration> present) {
        if (present.isEmpty()) {
            return "Add a lock store's starter to the dependencies, for example dev.distlock:"
                    + "distlock-spring-boot-starter (Redis, with spring.data.redis.* pointing at a Redis), or define a "
                    + "LockService bean (InMemoryLockService of distlock-test in tests). Or set "
                    + "distlock.enabled=false to run the annotated methods without locks.";
        }
        return "Provide " + present.stream().map(LockStoreRegistration::requirement)
                .collect(Collectors.joining("; ")) + ", or define a LockService bean. Or set distlock.enabled=false "
                + "to run the annotated methods without locks.";
    }

    private static String reason(List<LockStoreRegistration> present) {
        if (present.isEmpty()) {
            return "no lock store is on the class path (add a store's starter, for example "
                    + "distlock-spring-boot-starter for Redis)";
        }
        return "the store on the class path (" + LockStoreSelection.ids(present) + ") has nothing to work with "
                + "(it needs " + present.stream().map(LockStoreRegistration::requirement)
                        .collect(Collectors.joining("; ")) + ")";
    }
}
