package dev.distlock.sample.account;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.fencing.StaleTokenException;
import dev.distlock.sample.stock.InvalidRequestException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transfers between accounts. Each is a read-check-update of two rows in a transaction, under the locks of both
 * accounts, taken together in one global order: a transfer from 1 to 2 and one from 2 to 1 at the same moment do
 * not deadlock, and no third transfer touching either account runs in between, so the total never changes. Each
 * account's row gets the fencing token of that account's own lock, refused when a newer holder wrote a higher one.
 */
@Service
public class AccountService {

    private final AccountRepository accounts;

    /**
     * @param accounts the account table
     */
    public AccountService(AccountRepository accounts) {
        this.accounts = accounts;
    }

    /**
     * @param id an account id
     * @return the name of the account's lock, as {@code key = "{#from, #to}"} evaluates it for each account
     */
    public static String lockName(long id) {
        return "account:" + id;
    }

    /** @return every account and their total */
    @Transactional(readOnly = true)
    public Accounts accounts() {
        var all = accounts.findAll();
        return new Accounts(all, all.stream().mapToLong(Account::balance).sum());
    }

    /**
     * Moves {@code amount} from one account to another.
     *
     * @param from the account debited
     * @param to the account credited, not {@code from}
     * @param amount the amount, at least 1
     * @return the transfer
     * @throws InvalidRequestException for an amount below 1 or the same account twice
     * @throws AccountNotFoundException for an unknown account
     * @throws InsufficientFundsException when {@code from} holds less than {@code amount}
     * @throws StaleTokenException when this caller's lock on an account was lost to a newer holder
     */
    @DistributedLock(name = "account", key = "{#from, #to}")
    @Transactional
    public Transfer transfer(long from, long to, long amount) {
        validate(from, to, amount);
        long fromToken = fence(from);
        long toToken = fence(to);
        Account debited = accounts.find(from).orElseThrow(() -> new AccountNotFoundException(from));
        Account credited = accounts.find(to).orElseThrow(() -> new AccountNotFoundException(to));
        if (debited.balance() < amount) {
            throw new InsufficientFundsException(from, amount, debited.balance());
        }
        accounts.writeBalance(from, debited.balance() - amount);
        accounts.writeBalance(to, credited.balance() + amount);
        return new Transfer(from, to, amount, debited.balance() - amount, credited.balance() + amount, fromToken,
                toToken);
    }

    /**
     * Sets an account's balance (the demo starts from a known total). Takes the account's lock, so a reset never
     * lands in the middle of a transfer.
     *
     * @param id the account id
     * @param balance the new balance, not negative
     * @return the account
     */
    @DistributedLock(name = "account", key = "#id")
    @Transactional
    public Account setBalance(long id, long balance) {
        if (balance < 0) {
            throw new InvalidRequestException("balance", "balance must not be negative, was " + balance);
        }
        fence(id);
        accounts.writeBalance(id, balance);
        return accounts.find(id).orElseThrow(() -> new AccountNotFoundException(id));
    }

    /**
     * @param from the account debited
     * @param to the account credited
     * @param amount the amount
     * @throws InvalidRequestException for an amount below 1 or the same account twice
     */
    static void validate(long from, long to, long amount) {
        if (amount < 1) {
            throw new InvalidRequestException("amount", "amount must be at least 1, was " + amount);
        }
        if (from == to) {
            throw new InvalidRequestException("to", "to must be another account than from (" + from + ")");
        }
    }

    /**
     * Writes the token of this call's lock on the account to its row, or fails when a newer holder got there first.
     *
     * @return the token; 0 when no lock is held (distlock disabled)
     */
    private long fence(long id) {
        String name = lockName(id);
        LockHandle lock = LockContext.all().stream().filter(h -> h.name().equals(name)).findFirst().orElse(null);
        if (lock == null) {
            if (accounts.find(id).isEmpty()) {
                throw new AccountNotFoundException(id);
            }
            return 0;
        }
        // A newer holder's higher token throws StaleTokenException: 503 with Retry-After, nothing written.
        if (!accounts.claim(id, lock.fencingToken())) {
            throw new AccountNotFoundException(id);
        }
        return lock.fencingToken();
    }
}
