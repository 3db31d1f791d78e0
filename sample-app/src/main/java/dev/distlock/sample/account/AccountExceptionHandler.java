package dev.distlock.sample.account;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The account errors as RFC 9457 problem details: 404 unknown account, 409 not enough funds. Bad parameters (400)
 * and lock failures (503 with {@code Retry-After}) are answered as for the stock API.
 */
@RestControllerAdvice
public class AccountExceptionHandler {

    /**
     * @param ex the failure
     * @return 404
     */
    @ExceptionHandler
    public ProblemDetail accountNotFound(AccountNotFoundException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
        problem.setTitle("Account not found");
        problem.setProperty("accountId", ex.accountId());
        return problem;
    }

    /**
     * @param ex the failure
     * @return 409
     */
    @ExceptionHandler
    public ProblemDetail insufficientFunds(InsufficientFundsException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
        problem.setTitle("Not enough funds");
        problem.setProperty("accountId", ex.accountId());
        problem.setProperty("requested", ex.requested());
        problem.setProperty("available", ex.available());
        return problem;
    }
}
