package dev.distlock.actuate;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The force release operation on the real engine over the in-memory store: the status codes, that a disabled one
 * changes nothing, and the audit event with the caller's principal. The HTTP path with Redis is in
 * {@code ObservabilityWebTests}, the default (off) in the sample application's tests.
 */
class DistlockEndpointWebExtensionTests {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final StoreLockService engine = new StoreLockService(store, LockConfig.defaults(), LockListener.NONE);

    private final List<AuditEvent> audited = new ArrayList<>();

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void offByDefaultItAnswers403AndChangesNothing() {
        engine.start();
        LockHandle held = engine.lock("stock:1");

        WebEndpointResponse<Map<String, String>> response = extension(false).forceRelease(new String[] { "stock:1" },
                SecurityContext.NONE);

        assertThat(response.getStatus()).isEqualTo(403);
        assertThat(response.getBody().get("error")).contains("distlock.admin.force-release=true");
        assertThat(held.isHeld()).isTrue();
        assertThat(store.isLocked("stock:1")).isTrue();
        assertThat(audited).isEmpty();
        held.unlock();
    }

    @Test
    void releasesWhoeverHoldsItAndAuditsWhoDidIt() {
        engine.start();
        LockHandle held = engine.lock("report/daily");
        SecurityContext operator = securityContext("ops-alice");

        assertThat(extension(true).forceRelease(new String[] { "report", "daily" }, operator).getStatus())
                .isEqualTo(204);
        assertThat(held.isHeld()).isFalse();
        assertThat(store.isLocked("report/daily")).isFalse();
        assertThat(extension(true).forceRelease(new String[] { "report", "daily" }, SecurityContext.NONE).getStatus())
                .as("a free lock").isEqualTo(404);

        assertThat(audited).extracting(AuditEvent::getType).containsOnly(DistlockEndpointWebExtension.AUDIT_TYPE);
        assertThat(audited).extracting(AuditEvent::getPrincipal).containsExactly("ops-alice", "anonymous");
        assertThat(audited).extracting(event -> event.getData().get("name")).containsOnly("report/daily");
        assertThat(audited).extracting(event -> event.getData().get("released")).containsExactly(true, false);
    }

    @Test
    void whenAPrincipalIsRequiredARequestWithoutOneIs401AndChangesNothing() {
        engine.start();
        LockHandle held = engine.lock("stock:2");
        DistlockEndpointWebExtension secured = new DistlockEndpointWebExtension(engine, true,
                event -> audited.add(((AuditApplicationEvent) event).getAuditEvent()), true);

        WebEndpointResponse<Map<String, String>> response = secured.forceRelease(new String[] { "stock:2" },
                SecurityContext.NONE);

        assertThat(response.getStatus()).isEqualTo(401);
        assertThat(response.getBody().get("error")).contains("authenticated principal");
        assertThat(held.isHeld()).isTrue();
        assertThat(audited).isEmpty();
        assertThat(secured.forceRelease(new String[] { "stock:2" }, securityContext("ops-bob")).getStatus())
                .isEqualTo(204);
        assertThat(audited).extracting(AuditEvent::getPrincipal).containsExactly("ops-bob");
    }

    @Test
    void aStoreThatDoesNotAnswerIs503() {
        engine.start();
        store.makeUnavailable();

        WebEndpointResponse<Map<String, String>> response = extension(true).forceRelease(new String[] { "stock:1" },
                SecurityContext.NONE);

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getBody().get("error")).contains("unavailable");
        assertThat(audited).isEmpty();
    }

    private DistlockEndpointWebExtension extension(boolean enabled) {
        return new DistlockEndpointWebExtension(engine, enabled,
                event -> audited.add(((AuditApplicationEvent) event).getAuditEvent()));
    }

    private static SecurityContext securityContext(String user) {
        Principal principal = () -> user;
        return new SecurityContext() {
            @Override
            public Principal getPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }
        };
    }
}
