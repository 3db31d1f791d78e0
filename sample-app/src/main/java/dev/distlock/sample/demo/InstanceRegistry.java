package dev.distlock.sample.demo;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import dev.distlock.leader.LeadershipGrantedEvent;
import dev.distlock.leader.LeadershipRevokedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Every instance of the sample writes its base URL to the shared database once its web server listens, and a
 * heartbeat every two seconds, so that the page of any instance can list them all as timeline lanes and send flash
 * sale buyers to each.
 * <p>
 * The base URL is always a loopback address ({@code http://127.0.0.1:<port>}): the demo's instances run on one
 * machine, and the flash sale only ever sends load to loopback. An instance that stops marks itself stopped; one
 * killed counts as gone when its heartbeat is older than {@link #LIVE_FOR}. Rows stay for the history's length so
 * that old timeline lanes keep their names. Each row also says whether its instance leads the order consumer's group
 * ({@code sample.order-consumer.group}), as the leadership events tell it, so that the page can mark the leader.
 */
@Component
public class InstanceRegistry {

    /** How recent a heartbeat must be for the instance to count as live. */
    static final Duration LIVE_FOR = Duration.ofSeconds(6);

    private static final Logger log = LoggerFactory.getLogger(InstanceRegistry.class);

    private final JdbcClient jdbc;

    private final boolean lockEnabled;

    private final Duration history;

    private final String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

    private volatile String baseUrl;

    private final String leaderGroup;

    /** Whether this instance leads {@link #leaderGroup}: written with the row, and again at every heartbeat. */
    private volatile boolean leads;

    /**
     * @param jdbc the shared database
     * @param environment to tell whether distlock is enabled, and the history's length
     *        ({@code sample.demo.history}, default 10 minutes)
     */
    public InstanceRegistry(JdbcClient jdbc, Environment environment) {
        this.jdbc = jdbc;
        this.lockEnabled = environment.getProperty("distlock.enabled", Boolean.class, true);
        this.history = environment.getProperty("sample.demo.history", Duration.class, Duration.ofMinutes(10));
        this.leaderGroup = environment.getProperty("sample.order-consumer.group", "order-consumer");
    }

    /** @param event this instance leads a group: the page marks it when it is the order consumer's */
    @EventListener
    public void granted(LeadershipGrantedEvent event) {
        if (leaderGroup.equals(event.group())) {
            leads = true;
            heartbeat();
        }
    }

    /** @param event this instance no longer leads a group */
    @EventListener
    public void revoked(LeadershipRevokedEvent event) {
        if (leaderGroup.equals(event.group())) {
            leads = false;
            heartbeat();
        }
    }

    /** @return this instance's id, also before it registered */
    public String id() {
        return id;
    }

    /** @return how long the sample page's history is kept */
    Duration history() {
        return history;
    }

    /**
     * Registers this instance once its application web server listens (not the management server, which may have a
     * port of its own).
     *
     * @param event the web server's start
     */
    @EventListener
    public synchronized void register(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() != null) {
            return;
        }
        baseUrl = "http://127.0.0.1:" + event.getWebServer().getPort();
        long now = Micros.now();
        jdbc.sql("INSERT INTO demo_instance (id, base_url, pid, lock_enabled, started_at, last_seen, leads) "
                + "VALUES (:id, :url, :pid, :lock, :now, :now, :leads)")
                .param("id", id).param("url", baseUrl).param("pid", ProcessHandle.current().pid())
                .param("lock", lockEnabled).param("now", now).param("leads", leads)
                .update();
        log.info("Registered as sample instance {} at {} (distlock.enabled={})", id, baseUrl, lockEnabled);
    }

    /**
     * Tells the other instances that this one is still there (and whether it leads), and forgets instances older
     * than the history.
     */
    @Scheduled(fixedDelay = 2000, initialDelay = 2000)
    public synchronized void heartbeat() {
        if (baseUrl == null) {
            return;
        }
        try {
            long now = Micros.now();
            jdbc.sql("UPDATE demo_instance SET last_seen = :now, leads = :leads WHERE id = :id").param("now", now)
                    .param("leads", leads).param("id", id).update();
            jdbc.sql("DELETE FROM demo_instance WHERE last_seen < :before")
                    .param("before", now - history.toNanos() / 1_000).update();
        }
        catch (DataAccessException ex) {
            // The database may be briefly unavailable, e.g. while another instance hands over the H2 server.
            log.debug("Heartbeat not written: {}", ex.getMessage());
        }
    }

    /**
     * Marks this instance stopped, so that no flash sale sends it buyers any more.
     *
     * @param event the application context's close
     */
    @EventListener
    public void deregister(ContextClosedEvent event) {
        if (baseUrl == null || event.getApplicationContext().getParent() != null) {
            return;
        }
        try {
            jdbc.sql("UPDATE demo_instance SET stopped_at = :now WHERE id = :id").param("now", Micros.now())
                    .param("id", id).update();
        }
        catch (DataAccessException ex) {
            log.debug("Not marked stopped: {}", ex.getMessage());
        }
        baseUrl = null;
    }

    /** @return every instance the history knows, live or not, in start order */
    public List<Instance> all() {
        long liveSince = Micros.now() - LIVE_FOR.toNanos() / 1_000;
        return jdbc.sql("SELECT id, base_url, pid, lock_enabled, started_at, "
                + "(stopped_at IS NULL AND last_seen >= :since) AS live, leads FROM demo_instance "
                + "ORDER BY started_at, id")
                .param("since", liveSince)
                .query(Instance.class)
                .list();
    }

    /** @return the instances that can take requests now, in start order */
    public List<Instance> live() {
        return all().stream().filter(Instance::live).toList();
    }
}
