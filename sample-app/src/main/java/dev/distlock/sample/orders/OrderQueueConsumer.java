package dev.distlock.sample.orders;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.leader.LeadershipGrantedEvent;
import dev.distlock.leader.LeadershipRevokedEvent;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * A leader-only job: the order-queue consumer runs on one instance at a time, the leader of the group
 * {@code sample.order-consumer.group} ({@code order-consumer}, campaigned for through {@code distlock.leader.groups}
 * in application.properties). It starts polling when this instance
 * is granted the leadership and stops when it is revoked, which happens no later than the leadership's lease can
 * have expired, so two instances never consume at once. Each poll logs which instance leads, with the lease's
 * fencing token (what a real consumer would write with each processed order).
 */
@Component
public class OrderQueueConsumer implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(OrderQueueConsumer.class);

    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "order-queue-consumer");
        thread.setDaemon(true);
        return thread;
    });

    private final String group;

    private final Duration interval;

    private final Environment environment;

    private final AtomicInteger polls = new AtomicInteger();

    private @Nullable ScheduledFuture<?> polling;

    /**
     * @param group the leadership group ({@code sample.order-consumer.group})
     * @param interval how often the leader polls the queue ({@code sample.order-consumer.interval})
     * @param environment to name this instance in the log
     */
    public OrderQueueConsumer(@Value("${sample.order-consumer.group}") String group,
            @Value("${sample.order-consumer.interval}") Duration interval, Environment environment) {
        this.group = group;
        this.interval = interval;
        this.environment = environment;
    }

    /**
     * This instance leads: start consuming.
     *
     * @param event the grant
     */
    @EventListener
    public synchronized void granted(LeadershipGrantedEvent event) {
        if (!group.equals(event.group()) || polling != null) {
            return;
        }
        long token = event.lease().fencingToken();
        log.info("Instance {} leads '{}' (fencing token {}): consuming the order queue", instanceName(), group,
                token);
        polling = poller.scheduleWithFixedDelay(() -> poll(token), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * This instance no longer leads: stop consuming at once.
     *
     * @param event the revocation
     */
    @EventListener
    public synchronized void revoked(LeadershipRevokedEvent event) {
        if (!group.equals(event.group()) || polling == null) {
            return;
        }
        polling.cancel(false);
        polling = null;
        log.info("Instance {} no longer leads '{}': stopped consuming the order queue", instanceName(), group);
    }

    /** @return the leadership group */
    public String group() {
        return group;
    }

    /** @return whether this instance consumes the queue now */
    public synchronized boolean consuming() {
        return polling != null;
    }

    /** @return how many times this instance polled the queue since it started */
    public int polls() {
        return polls.get();
    }

    private void poll(long fencingToken) {
        polls.incrementAndGet();
        log.debug("Order queue polled by instance {} (fencing token {})", instanceName(), fencingToken);
    }

    private String instanceName() {
        String name = ManagementFactory.getRuntimeMXBean().getName();
        String port = environment.getProperty("local.server.port");
        return port == null ? name : name + " (port " + port + ")";
    }

    @Override
    public void destroy() {
        poller.shutdownNow();
    }
}
