package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.fencing.StaleTokenException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a web request that failed on its lock with HTTP 503, an RFC 9457 problem detail and {@code Retry-After}:
 * a lock not acquired in time ({@link LockTimeoutException}), an unavailable lock store
 * ({@link LockUnavailableException}), and a lock lost to a newer holder ({@link LeaseLostException}, or a guarded
 * write refused with {@link StaleTokenException}). The request may be retried. The problem detail carries the lock
 * names as {@code locks}, and for a refused write the fencing tokens.
 * <p>
 * Its {@code detail} is written for the client: it names the locks and the wait, never the holder's instance id,
 * the method or the store's error, which an exception message may carry and which belong in the server's log (this
 * handler logs the message: at DEBUG for a timeout, a normal answer of a busy lock, at WARN for the others).
 * For Spring MVC and WebFlux alike; registered by {@code distlock.problem-details.enabled=true} and ordered after the
 * application's own advice.
 */
@RestControllerAdvice
public class LockProblemDetailsHandler implements Ordered {

    private static final Logger log = LoggerFactory.getLogger(LockProblemDetailsHandler.class);

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
        log.debug("Answering 503: {}", ex.getMessage());
        String wait = ex.waitTime().map(time -> " within " + LockException.millis(time)).orElse("");
        return unavailable("Lock not acquired in time", locks(ex) + " not acquired" + wait + "; nothing ran", ex);
    }

    /**
     * @param ex the store's failure
     * @return 503 "Lock store unavailable"
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockUnavailable(LockUnavailableException ex) {
        log.warn("Answering 503: {}", ex.getMessage());
        return unavailable("Lock store unavailable", "The lock store did not answer; nothing ran", ex);
    }

    /**
     * @param ex the loss of a lock while the work ran
     * @return 503 "Lock lost"
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> leaseLost(LeaseLostException ex) {
        log.warn("Answering 503: {}", ex.getMessage());
        return unavailable("Lock lost", locks(ex) + " lost while the request ran", ex);
    }

    /**
     * @param ex a guarded write refused because a newer holder wrote first
     * @return 503 "Lock lost", with the refused token as {@code fencingToken} and the resource's as {@code seenToken}
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> staleToken(StaleTokenException ex) {
        log.warn("Answering 503: {}", ex.getMessage());
        ResponseEntity<ProblemDetail> answer = unavailable("Lock lost",
                "A newer lock holder wrote first; this write changed nothing", ex);
        ProblemDetail problem = answer.getBody();
        if (problem != null) {
            problem.setProperty("fencingToken", ex.token());
            ex.seenToken().ifPresent(seen -> problem.setProperty("seenToken", seen));
        }
        return answer;
    }

    private static String locks(LockException ex) {
        return switch (ex.lockNames().size()) {
            case 0 -> "The lock was";
            case 1 -> "Lock '" + ex.lockNames().get(0) + "' was";
            default -> "Locks " + ex.lockNames() + " were";
        };
    }

    private ResponseEntity<ProblemDetail> unavailable(String title, String detail, LockException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail);
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
