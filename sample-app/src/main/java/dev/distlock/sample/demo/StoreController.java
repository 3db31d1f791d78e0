package dev.distlock.sample.demo;

import java.util.Locale;

import dev.distlock.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Says which lock store this instance uses ({@code GET /api/demo/store}, shown on the page), and logs the page's
 * address once the application is ready: "Sample page: http://localhost:8080/ (lock store: redis ...)".
 */
@RestController
public class StoreController {

    private static final Logger log = LoggerFactory.getLogger(StoreController.class);

    private final StoreInfo store;

    private final Environment environment;

    /**
     * @param stores the lock store, absent with {@code distlock.enabled=false}
     * @param environment where {@code distlock.store} and the port are read
     */
    public StoreController(ObjectProvider<LockStore> stores, Environment environment) {
        LockStore lockStore = stores.getIfUnique();
        this.store = new StoreInfo(environment.getProperty("distlock.store", "redis").strip()
                .toLowerCase(Locale.ROOT), lockStore != null ? lockStore.toString() : "none");
        this.environment = environment;
    }

    /** @return the lock store of this instance */
    @GetMapping("/api/demo/store")
    public StoreInfo store() {
        return store;
    }

    /** Prints where the page is, so that a developer who started the sample knows where to look. */
    @EventListener(ApplicationReadyEvent.class)
    public void announce() {
        String port = environment.getProperty("local.server.port", environment.getProperty("server.port", "8080"));
        log.info("Sample page: http://localhost:{}/ (lock store: {}, {}{})", port, store.id(), store.description(),
                environment.getProperty("distlock.enabled", Boolean.class, true) ? "" : ", distlock.enabled=false");
    }
}
