package dev.distlock.sample.stock;

/**
 * The outcome of a successful deduction.
 *
 * @param productId the product
 * @param quantity units deducted
 * @param remaining units left afterwards
 */
public record Deduction(long productId, int quantity, int remaining) {
}
