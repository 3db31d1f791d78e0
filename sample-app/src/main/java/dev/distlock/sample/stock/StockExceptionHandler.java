package dev.distlock.sample.stock;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Maps failures to RFC 9457 problem details ({@code application/problem+json}). Spring MVC's own errors (a
 * missing or non-numeric parameter, an unknown path) are problem details too, through the base class.
 * <ul>
 * <li>404 unknown product, 400 bad parameter, 409 not enough stock.</li>
 * </ul>
 * Lock failures are 503 with {@code Retry-After}, from distlock's own handler
 * ({@code distlock.problem-details.enabled=true} in {@code application.properties}): a lock not acquired within the
 * wait time, an unavailable lock store, and a lock lost to a newer holder before the write (a product's or an
 * account's {@code FencedJdbc} write refused: nothing changed, title "Lock lost").
 */
@RestControllerAdvice
public class StockExceptionHandler extends ResponseEntityExceptionHandler {

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

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }
}
