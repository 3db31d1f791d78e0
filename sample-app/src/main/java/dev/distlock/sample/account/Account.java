package dev.distlock.sample.account;

/**
 * An account.
 *
 * @param id the account id
 * @param owner who owns it
 * @param balance its balance, never negative
 */
public record Account(long id, String owner, long balance) {
}
