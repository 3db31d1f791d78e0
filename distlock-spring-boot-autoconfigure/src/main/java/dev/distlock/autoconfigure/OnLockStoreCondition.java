package dev.distlock.autoconfigure;

import java.util.Optional;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The condition behind {@link ConditionalOnLockStore}. An ambiguous or wrong {@code distlock.store} fails start-up
 * here, naming the property, unless distlock is disabled.
 */
final class OnLockStoreCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String wanted = metadata.getAnnotations().get(ConditionalOnLockStore.class).getString("value");
        if (!context.getEnvironment().getProperty("distlock.enabled", Boolean.class, true)) {
            return ConditionOutcome.noMatch("distlock.enabled=false");
        }
        Optional<LockStoreRegistration> selected = LockStoreSelection.selected(context.getEnvironment(),
                context.getClassLoader());
        if (selected.isPresent() && selected.get().id().equals(wanted)) {
            return ConditionOutcome.match("the lock store is " + wanted);
        }
        return ConditionOutcome.noMatch("the lock store is "
                + selected.map(LockStoreRegistration::id).orElse("none"));
    }
}
