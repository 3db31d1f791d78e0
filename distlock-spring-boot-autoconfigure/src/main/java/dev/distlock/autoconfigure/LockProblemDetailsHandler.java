package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.LockException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a web request whose lock was not acquired in time ({@link LockTimeoutException}) or whose lock store was
 * unavailable ({@link LockUnavailableException}) with HTTP 503, an RFC 9457 problem detail and {@code Retry-After}:
 * the work did not run, and the request may be retried. The problem detail carries the lock names as {@code locks}.
 * For Spring MVC and WebFlux alike; registered by {@code distlock.problem-details.enabled=true} and ordered after the
 * application's own advice.
 */
@RestControllerAdvice
public class LockProblemDetailsHandler implements Ordered {

    private final String retryAfterSeconds;

    /**
     * @param retryAfter what {@code Retry-After} tells clients, rounded up to whole seconds (at least 1)
     */
    public LockProblemDetailsHandler(Duration retryAfter) {
        long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        this.retryAfterSeconds = Long.toString(seconds);
    }

    /**
     * @param ex the timeout
     * @return 503 "Lock not acquired in time"
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockTimeout(LockTimeoutException ex) {
        return unavailable("Lock not acquired in time", ex);
    }

    /**
     * @param ex the store's failure
     * @return 503 "Lock store unavailable"
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockUnavailable(LockUnavailableException ex) {
        return unavailable("Lock store unavailable", ex);
    }

    private ResponseEntity<ProblemDetail> unavailable(String title, LockException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                String.valueOf(ex.getMessage()));
        problem.setTitle(title);
        problem.setProperty("locks", ex.lockNames());
        ex.waitTime().ifPresent(wait -> problem.setProperty("waitMillis", wait.toMillis()));
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, retryAfterSeconds)
                .body(problem);
    }

    /** Last: an application's own advice for these exceptions, ordered or not, is asked first. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
