package dev.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.http.ProblemDetail;

/**
 * With {@code distlock.problem-details.enabled=true} in a web application (Spring MVC or WebFlux), answers
 * {@code LockTimeoutException} and {@code LockUnavailableException} with HTTP 503, a problem detail and
 * {@code Retry-After} ({@link LockProblemDetailsHandler}). Backs off when the application has its own
 * {@code @ControllerAdvice} for those exceptions or its own {@link LockProblemDetailsHandler}.
 */
@AutoConfiguration
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBooleanProperty(name = "distlock.problem-details.enabled")
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockProblemDetailsAutoConfiguration {

    /**
     * @param properties where {@code distlock.problem-details.retry-after} is read
     * @return the handler
     */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(OnNoLockExceptionAdviceCondition.class)
    LockProblemDetailsHandler distlockProblemDetailsHandler(DistlockProperties properties) {
        return new LockProblemDetailsHandler(properties.problemDetails().retryAfter());
    }
}
