package dev.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipGrantedEvent;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.leader.LeadershipRevokedEvent;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * The campaigns of {@code distlock.leader.groups}: started with the context, after the lock service, each publishing
 * {@link LeadershipGrantedEvent} and {@link LeadershipRevokedEvent} (on the campaign's thread: listeners return
 * promptly and hand long work to another thread); closed before the lock service shuts down, so a leader is told
 * and releases its lease while the store still answers.
 */
final class LeadershipCampaigns implements SmartLifecycle {

    /** Started after, and stopped before, the lock service's own lifecycle. */
    static final int PHASE = DistlockLifecycle.PHASE + 1;

    private final LockService lockService;

    private final List<String> groups;

    private final ApplicationEventPublisher events;

    private final List<Leadership> campaigns = new ArrayList<>();

    LeadershipCampaigns(LockService lockService, List<String> groups, ApplicationEventPublisher events) {
        this.lockService = lockService;
        this.groups = List.copyOf(groups);
        this.events = events;
    }

    @Override
    public synchronized void start() {
        if (!campaigns.isEmpty()) {
            return;
        }
        for (String group : groups) {
            campaigns.add(lockService.campaign(group, new LeadershipListener() {

                @Override
                public void granted(String granted, LockHandle lease) {
                    events.publishEvent(new LeadershipGrantedEvent(granted, lease));
                }

                @Override
                public void revoked(String revoked) {
                    events.publishEvent(new LeadershipRevokedEvent(revoked));
                }
            }));
        }
    }

    @Override
    public synchronized void stop() {
        campaigns.forEach(Leadership::close);
        campaigns.clear();
    }

    @Override
    public synchronized boolean isRunning() {
        return !campaigns.isEmpty();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** @return the campaigns, for tests */
    synchronized List<Leadership> campaigns() {
        return List.copyOf(campaigns);
    }
}
