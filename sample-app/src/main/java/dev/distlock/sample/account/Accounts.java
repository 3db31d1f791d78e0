package dev.distlock.sample.account;

import java.util.List;

/**
 * Every account and the total of their balances, which transfers never change.
 *
 * @param accounts the accounts, by id
 * @param total the sum of their balances
 */
public record Accounts(List<Account> accounts, long total) {
}
