package dev.distlock.embedded;

/**
 * An error reply ({@code -ERR ...}, {@code -MOVED ...}, ...) of a Redis server to a command sent with
 * {@link RespConnection}. The connection stays usable.
 */
public final class RespErrorException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the error line the server sent, without the leading {@code -}
     */
    public RespErrorException(String message) {
        super(message);
    }
}
