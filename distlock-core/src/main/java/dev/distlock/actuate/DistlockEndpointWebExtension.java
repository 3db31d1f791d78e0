package dev.distlock.actuate;

import java.security.Principal;
import java.util.Map;

import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockAdministration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The web-only operation of the {@code distlock} endpoint: {@code DELETE /actuator/distlock/{name}}, an operator's
 * force release of a lock whoever holds it ({@link LockAdministration#forceRelease}). Web-only because its answer is
 * an HTTP status: 204 released, 404 the lock was free, 403 force release is off ({@code distlock.admin.force-release},
 * the default), 503 the store did not answer. Whether the operation is reachable at all is the endpoint's access
 * ({@code management.endpoint.distlock.access}), which a read-only setting denies.
 * <p>
 * Every force release is logged as a WARN and published as an {@link AuditApplicationEvent} of type
 * {@value #AUDIT_TYPE} with the principal and the lock name, which Actuator's audit support records when the
 * application has an {@code AuditEventRepository}.
 */
@EndpointWebExtension(endpoint = DistlockEndpoint.class)
public class DistlockEndpointWebExtension {

    /** The type of the audit event every force release publishes. */
    public static final String AUDIT_TYPE = "DISTLOCK_FORCE_RELEASE";

    /** HTTP 403, which {@link WebEndpointResponse} has no constant for. */
    private static final int STATUS_FORBIDDEN = 403;

    /** The principal recorded when the request has none (the endpoint is not secured). */
    private static final String ANONYMOUS = "anonymous";

    private static final Logger log = LoggerFactory.getLogger(DistlockEndpointWebExtension.class);

    private final LockAdministration administration;

    private final boolean forceReleaseEnabled;

    private final ApplicationEventPublisher events;

    /**
     * @param administration the engine
     * @param forceReleaseEnabled {@code distlock.admin.force-release}
     * @param events where the audit events go
     */
    public DistlockEndpointWebExtension(LockAdministration administration, boolean forceReleaseEnabled,
            ApplicationEventPublisher events) {
        this.administration = administration;
        this.forceReleaseEnabled = forceReleaseEnabled;
        this.events = events;
    }

    /**
     * @param path the full lock name, as the endpoint lists it; a name with {@code /} spans several path segments
     * @param security who asks
     * @return 204 when released, 404 when the lock was free, 403 when force release is off, 503 when the store did
     *         not answer
     */
    @DeleteOperation
    public WebEndpointResponse<Map<String, String>> forceRelease(
            @Selector(match = Selector.Match.ALL_REMAINING) String[] path, SecurityContext security) {
        String name = String.join("/", path);
        if (!forceReleaseEnabled) {
            return new WebEndpointResponse<>(Map.of("error", "Force release is off: set "
                    + "distlock.admin.force-release=true to allow it"), STATUS_FORBIDDEN);
        }
        Principal principal = security.getPrincipal();
        String who = (principal != null) ? principal.getName() : ANONYMOUS;
        boolean released;
        try {
            released = administration.forceRelease(name);
        }
        catch (LockUnavailableException ex) {
            log.warn("Force release of lock '{}' by {} failed: {}", name, who, ex.getMessage());
            return new WebEndpointResponse<>(Map.of("error", String.valueOf(ex.getMessage())),
                    WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
        // Logged and audited whether or not somebody held it: the attempt itself is the operator's action.
        log.warn("Lock '{}' force-released by {}: {}", name, who,
                released ? "its holder lost it" : "it was free, nothing changed");
        events.publishEvent(new AuditApplicationEvent(who, AUDIT_TYPE,
                Map.of("name", name, "released", released)));
        return released ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NO_CONTENT)
                : new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
}
