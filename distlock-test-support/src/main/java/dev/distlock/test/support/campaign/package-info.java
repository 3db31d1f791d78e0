/**
 * The fault campaign's store SPI: a store module's deployments under faults ({@link
 * dev.distlock.test.support.campaign.CampaignTopology}), the per-node links the campaign cuts
 * ({@link dev.distlock.test.support.campaign.Links}), the faults ({@link dev.distlock.test.support.campaign.FaultKind}),
 * found through {@link dev.distlock.test.support.campaign.CampaignTopologies}.
 */
@NullMarked
package dev.distlock.test.support.campaign;

import org.jspecify.annotations.NullMarked;
