package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when the given lock store is the one the application uses (see {@link LockStoreKind#selected}).
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLockStoreCondition.class)
@interface ConditionalOnLockStore {

    /** @return the store */
    LockStoreKind value();
}
