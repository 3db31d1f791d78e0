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
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.util.ClassUtils;

/**
 * The web-only operations of the {@code distlock} endpoint on one lock, whoever holds it: {@code GET
 * /actuator/distlock/{name}}, who holds it ({@link LockAdministration#describe}: 200, 404 when free, 503 when the
 * store did not answer), and {@code DELETE /actuator/distlock/{name}}, an operator's force release
 * ({@link LockAdministration#forceRelease}). Web-only because their answers are HTTP statuses; the DELETE answers
 * 204 released, 404 the lock was free, 403 force release is off ({@code distlock.admin.force-release}, the default),
 * 401 no principal while Spring Security is on the class path, 503 the store did not answer. Whether the DELETE is
 * reachable at all is the endpoint's access ({@code management.endpoint.distlock.access}), read-only unless set to
 * {@code unrestricted}.
 * <p>
 * With Spring Security on the class path the DELETE needs an authenticated principal, whatever the application's
 * security lets through to the endpoint: a management port thought private, or a {@code permitAll} on
 * {@code /actuator/**}, then still does not let anyone release any lock.
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

    /** HTTP 401, which {@link WebEndpointResponse} has no constant for. */
    private static final int STATUS_UNAUTHORIZED = 401;

    /** A class of Spring Security's core: present when the application has Spring Security. */
    private static final String SPRING_SECURITY = "org.springframework.security.core.Authentication";

    /** The principal recorded when the request has none (the endpoint is not secured). */
    private static final String ANONYMOUS = "anonymous";

    private static final Logger log = LoggerFactory.getLogger(DistlockEndpointWebExtension.class);

    private final LockAdministration administration;

    private final boolean forceReleaseEnabled;

    private final ApplicationEventPublisher events;

    private final boolean principalRequired;

    /**
     * @param administration the engine
     * @param forceReleaseEnabled {@code distlock.admin.force-release}
     * @param events where the audit events go
     */
    public DistlockEndpointWebExtension(LockAdministration administration, boolean forceReleaseEnabled,
            ApplicationEventPublisher events) {
        this(administration, forceReleaseEnabled, events,
                ClassUtils.isPresent(SPRING_SECURITY, DistlockEndpointWebExtension.class.getClassLoader()));
    }

    /**
     * @param administration the engine
     * @param forceReleaseEnabled {@code distlock.admin.force-release}
     * @param events where the audit events go
     * @param principalRequired whether a request without a principal is refused (by default: when Spring Security
     *        is on the class path)
     */
    public DistlockEndpointWebExtension(LockAdministration administration, boolean forceReleaseEnabled,
            ApplicationEventPublisher events, boolean principalRequired) {
        this.administration = administration;
        this.forceReleaseEnabled = forceReleaseEnabled;
        this.events = events;
        this.principalRequired = principalRequired;
    }

    /**
     * {@code GET /actuator/distlock/{name}}: who holds the lock, on any instance, read from the store.
     *
     * @param path the full lock name; a name with {@code /} spans several path segments
     * @return 200 with the holder ({@link LockHolderDescriptor}), 404 when the lock is free, 503 when the store did
     *         not answer
     */
    @ReadOperation
    public WebEndpointResponse<Object> holder(@Selector(match = Selector.Match.ALL_REMAINING) String[] path) {
        String name = String.join("/", path);
        try {
            return administration.describe(name).<WebEndpointResponse<Object>>map(info -> new WebEndpointResponse<>(
                    LockHolderDescriptor.of(info))).orElseGet(() -> new WebEndpointResponse<>(Map.of("error",
                    "Lock '" + name + "' is free"), WebEndpointResponse.STATUS_NOT_FOUND));
        }
        catch (LockUnavailableException ex) {
            return new WebEndpointResponse<>(Map.of("error", String.valueOf(ex.getMessage())),
                    WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    /**
     * @param path the full lock name, as the endpoint lists it; a name with {@code /} spans several path segments
     * @param security who asks
     * @return 204 when released (or being handed over), 404 when the lock was free, 403 when force release is off,
     *         401 when a principal is required and the request has none, 503 when the store did not answer
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
        if (principal == null && principalRequired) {
            log.warn("Force release of lock '{}' refused: the request is not authenticated", name);
            return new WebEndpointResponse<>(Map.of("error", "Force release needs an authenticated principal: "
                    + "Spring Security is on the class path and the request has none"), STATUS_UNAUTHORIZED);
        }
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
