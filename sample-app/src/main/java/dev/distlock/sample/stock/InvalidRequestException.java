package dev.distlock.sample.stock;

/**
 * A request parameter is out of range (answered with 400).
 */
public class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String parameter;

    /**
     * @param parameter the offending request parameter
     * @param message what is wrong with it
     */
    public InvalidRequestException(String parameter, String message) {
        super(message);
        this.parameter = parameter;
    }

    /** @return the offending request parameter */
    public String parameter() {
        return parameter;
    }
}
