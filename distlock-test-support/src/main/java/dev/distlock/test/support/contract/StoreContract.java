package dev.distlock.test.support.contract;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Runs a contract class once per store fixture on the class path ({@link ContractFixtures}): in a store module,
 * once per set-up its fixture provider lists in {@code contractIds()}. The invocation's name is the fixture's id.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ParameterizedClass(name = "[{0}]")
@ArgumentsSource(ContractFixtures.class)
public @interface StoreContract {
}
