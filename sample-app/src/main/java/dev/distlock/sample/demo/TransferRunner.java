package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.sample.account.Account;
import dev.distlock.sample.account.AccountService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

/**
 * Runs the page's second demo: resets every account to {@value #START_BALANCE}, then sends random transfers
 * between them ({@code POST /api/accounts/transfer}, both accounts locked together), spread round-robin over every
 * live instance ({@link DemoLoad}), and compares the total before and after. Amounts up to {@value #MAX_AMOUNT}, so
 * some transfers are refused for lack of funds. One run at a time across all instances (the lock
 * {@code demo-transfers}, tried once).
 */
@Service
public class TransferRunner {

    /** Most transfers per run. */
    public static final int MAX_TRANSFERS = 2_000;

    /** Most requests in flight. */
    public static final int MAX_CONCURRENCY = 64;

    static final long START_BALANCE = 1_000;

    static final int MAX_AMOUNT = 300;

    private static final Logger log = LoggerFactory.getLogger(TransferRunner.class);

    private final DemoLoad load;

    private final AccountService accounts;

    /**
     * @param load sends the transfers to the instances
     * @param accounts resets the balances and reads the total
     */
    public TransferRunner(DemoLoad load, AccountService accounts) {
        this.load = load;
        this.accounts = accounts;
    }

    /**
     * @param transfers transfers to send
     * @param concurrency requests in flight at most
     * @return the counts and the totals
     * @throws IllegalStateException when no instance is live
     */
    @DistributedLock(name = "demo-transfers", waitTime = "0")
    public TransferRunResult run(int transfers, int concurrency) {
        List<Instance> targets = load.targets();
        List<Long> ids = accounts.accounts().accounts().stream().map(Account::id).toList();
        ids.forEach(id -> accounts.setBalance(id, START_BALANCE));
        long before = accounts.accounts().total();
        long started = System.nanoTime();
        Map<String, Integer> errors = load.post(targets, transfers, concurrency, i -> randomTransfer(ids));
        long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
        long after = accounts.accounts().total();
        int succeeded = Objects.requireNonNullElse(errors.remove("200"), 0);
        int refused = Objects.requireNonNullElse(errors.remove("409"), 0);
        TransferRunResult result = new TransferRunResult(targets.stream().map(Instance::id).toList(), transfers,
                concurrency, succeeded, refused, errors, before, after, elapsedMillis);
        log.info("Transfers over {} instances: {} done, {} refused, errors {}, total {} -> {} ({})", targets.size(),
                succeeded, refused, errors, before, after, result.conserved() ? "conserved" : "NOT conserved");
        return result;
    }

    private static String randomTransfer(List<Long> ids) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int from = random.nextInt(ids.size());
        int to = (from + 1 + random.nextInt(ids.size() - 1)) % ids.size();
        return "/api/accounts/transfer?from=" + ids.get(from) + "&to=" + ids.get(to) + "&amount="
                + (1 + random.nextInt(MAX_AMOUNT));
    }
}
