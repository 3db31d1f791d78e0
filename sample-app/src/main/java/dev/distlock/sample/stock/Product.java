package dev.distlock.sample.stock;

/**
 * A product and its stock, as the API shows it.
 *
 * @param id the product id
 * @param name the display name
 * @param stock units left
 */
public record Product(long id, String name, int stock) {
}
