package dev.distlock.annotation;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports an {@link InvalidLockAnnotationException} as Spring Boot's "APPLICATION FAILED TO START" block: the
 * method, the attribute and what is wrong as the description, what to change as the action, instead of a chain of
 * bean creation errors. Registered in {@code META-INF/spring.factories}; ordered before Boot's generic analyzers.
 */
public class DistributedLockFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockAnnotationException>
        implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockAnnotationException cause) {
        String description = "The @DistributedLock annotation on " + cause.method() + " is invalid:\n\n    "
                + cause.attribute() + " " + cause.problem();
        return new FailureAnalysis(description, cause.action(), cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
