package dev.distlock.sample.stock;

import dev.distlock.LeaseLostException;
import dev.distlock.fencing.StaleTokenException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Maps failures to RFC 9457 problem details ({@code application/problem+json}). Spring MVC's own errors (a
 * missing or non-numeric parameter, an unknown path) are problem details too, through the base class.
 * <ul>
 * <li>404 unknown product, 400 bad parameter, 409 not enough stock;</li>
 * <li>503 with {@code Retry-After} when the lock was lost to a newer holder before the write (a product's or an
 * account's): nothing changed and the request may be retried.</li>
 * </ul>
 * A lock not acquired within the wait time and an unavailable lock store are 503 with {@code Retry-After} too, from
 * distlock's own handler ({@code distlock.problem-details.enabled=true} in {@code application.properties}).
 */
@RestControllerAdvice
public class StockExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(StockExceptionHandler.class);

    /** Seconds a client should wait before retrying after a 503. */
    private static final String RETRY_AFTER_SECONDS = "1";

    /**
     * @param ex the failure
     * @return 404
     */
    @ExceptionHandler
    public ProblemDetail productNotFound(ProductNotFoundException ex) {
        ProblemDetail problem = problem(HttpStatus.NOT_FOUND, "Product not found", ex.getMessage());
        problem.setProperty("productId", ex.productId());
        return problem;
    }

    /**
     * @param ex the failure
     * @return 409
     */
    @ExceptionHandler
    public ProblemDetail insufficientStock(InsufficientStockException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, "Not enough stock", ex.getMessage());
        problem.setProperty("productId", ex.productId());
        problem.setProperty("requested", ex.requested());
        problem.setProperty("available", ex.available());
        return problem;
    }

    /**
     * @param ex the failure
     * @return 400
     */
    @ExceptionHandler
    public ProblemDetail invalidRequest(InvalidRequestException ex) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Invalid request parameter", ex.getMessage());
        problem.setProperty("parameter", ex.parameter());
        return problem;
    }

    /**
     * A guarded write refused by distlock's {@code FencedJdbc}: a newer lock holder already wrote the row.
     *
     * @param ex the failure
     * @return 503
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> staleToken(StaleTokenException ex) {
        log.warn(ex.getMessage());
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, "Lock lost", ex.getMessage());
        problem.setProperty("resource", ex.resource());
        problem.setProperty("fencingToken", ex.token());
        ex.seenToken().ifPresent(seen -> problem.setProperty("seenToken", seen));
        return unavailable(problem);
    }

    /**
     * A lease lost while the work ran, with {@code distlock.on-lease-lost=throw}.
     *
     * @param ex the failure
     * @return 503
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> leaseLost(LeaseLostException ex) {
        log.warn("Lock failure: {}", ex.getMessage());
        return unavailable(problem(HttpStatus.SERVICE_UNAVAILABLE, "Lock failure", ex.getMessage()));
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }

    private static ResponseEntity<ProblemDetail> unavailable(ProblemDetail problem) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(problem);
    }
}
