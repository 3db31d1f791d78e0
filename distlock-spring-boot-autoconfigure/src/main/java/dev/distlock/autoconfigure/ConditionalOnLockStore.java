package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when the lock store with the given {@linkplain LockStoreRegistration#id() id} is the one the application
 * uses: the registered store that {@code distlock.store} names, or else the only one on the class path; never when
 * {@code distlock.enabled=false}. A store module puts it on its auto-configuration. A wrong or ambiguous
 * {@code distlock.store} fails start-up here, naming the property.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLockStoreCondition.class)
public @interface ConditionalOnLockStore {

    /** @return the id of the store, as its {@link LockStoreRegistration} gives it */
    String value();
}
