package dev.distlock.leader;

import dev.distlock.LockHandle;

/**
 * Published (as a Spring application event) when this instance becomes the leader of a group it campaigns for
 * through {@code distlock.leader.groups}.
 *
 * @param group the group
 * @param lease the leadership's lease; its fencing token fences the leader's writes
 */
public record LeadershipGrantedEvent(String group, LockHandle lease) {
}
