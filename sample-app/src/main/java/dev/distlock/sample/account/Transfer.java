package dev.distlock.sample.account;

/**
 * A transfer done: the balances after it, and the fencing token of each account's lock, which the transfer wrote to
 * that account's row.
 *
 * @param from the account debited
 * @param to the account credited
 * @param amount the amount moved
 * @param fromBalance the debited account's balance after the transfer
 * @param toBalance the credited account's balance after the transfer
 * @param fromFencingToken the fencing token of the debited account's lock
 * @param toFencingToken the fencing token of the credited account's lock
 */
public record Transfer(long from, long to, long amount, long fromBalance, long toBalance, long fromFencingToken,
        long toFencingToken) {
}
