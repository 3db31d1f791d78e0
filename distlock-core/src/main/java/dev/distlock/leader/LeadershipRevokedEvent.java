package dev.distlock.leader;

/**
 * Published (as a Spring application event) when this instance stops being the leader of a group it campaigns for
 * through {@code distlock.leader.groups}: no later than the moment its lease can have expired.
 *
 * @param group the group
 */
public record LeadershipRevokedEvent(String group) {
}
