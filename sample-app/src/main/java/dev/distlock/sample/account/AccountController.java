package dev.distlock.sample.account;

import dev.distlock.sample.stock.InvalidRequestException;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The account API: transfers between two accounts under both their locks, the accounts with their total, and a
 * reset of one balance. Errors are problem details ({@link AccountExceptionHandler}, and the stock API's handler
 * for bad parameters and lock failures).
 */
@RestController
@RequestMapping("/api/accounts")
public class AccountController {

    private final AccountService accounts;

    /**
     * @param accounts the account service
     */
    public AccountController(AccountService accounts) {
        this.accounts = accounts;
    }

    /** @return every account and the total of their balances */
    @GetMapping
    public Accounts accounts() {
        return accounts.accounts();
    }

    /**
     * @param from the account debited
     * @param to the account credited
     * @param amount the amount, at least 1
     * @return the transfer; 400 for a bad amount or the same account twice, 404 for an unknown account, 409 when
     *         {@code from} holds less, 503 when the locks were not all acquired in time or the store is unavailable
     */
    @PostMapping("/transfer")
    public Transfer transfer(@RequestParam long from, @RequestParam long to, @RequestParam long amount) {
        // Checked before the service so that bad input never takes the locks.
        AccountService.validate(from, to, amount);
        return accounts.transfer(from, to, amount);
    }

    /**
     * @param id the account id
     * @param balance the new balance, not negative
     * @return the account; 400 for a negative balance, 404 for an unknown account
     */
    @PutMapping("/{id}/balance")
    public Account setBalance(@PathVariable long id, @RequestParam long balance) {
        if (balance < 0) {
            throw new InvalidRequestException("balance", "balance must not be negative, was " + balance);
        }
        return accounts.setBalance(id, balance);
    }
}
