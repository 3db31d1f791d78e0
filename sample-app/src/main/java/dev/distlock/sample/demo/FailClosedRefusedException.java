package dev.distlock.sample.demo;

/** The fail-closed demo cannot run on this instance: it did not start the embedded Redis, or a run is going on. */
public class FailClosedRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what to do instead */
    public FailClosedRefusedException(String message) {
        super(message);
    }
}
