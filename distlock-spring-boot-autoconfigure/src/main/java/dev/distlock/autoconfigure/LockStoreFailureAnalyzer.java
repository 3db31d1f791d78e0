package dev.distlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports a {@link LockStoreSelectionException} as Spring Boot's Description / Action block. Registered in
 * {@code META-INF/spring.factories}; ordered before Boot's generic analyzers (a failing condition would otherwise
 * be reported as a bean creation error).
 */
public class LockStoreFailureAnalyzer extends AbstractFailureAnalyzer<LockStoreSelectionException>
        implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockStoreSelectionException cause) {
        return new FailureAnalysis(String.valueOf(cause.getMessage()), cause.action(), cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
