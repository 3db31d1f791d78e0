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
        LockStoreKind wanted = metadata.getAnnotations().get(ConditionalOnLockStore.class)
                .getEnum("value", LockStoreKind.class);
        if (!context.getEnvironment().getProperty("distlock.enabled", Boolean.class, true)) {
            return ConditionOutcome.noMatch("distlock.enabled=false");
        }
        Optional<LockStoreKind> selected = LockStoreKind.selected(context.getEnvironment(),
                context.getClassLoader());
        if (selected.isPresent() && selected.get() == wanted) {
            return ConditionOutcome.match("the lock store is " + wanted.id());
        }
        return ConditionOutcome.noMatch("the lock store is " + selected.map(LockStoreKind::id).orElse("none"));
    }
}
