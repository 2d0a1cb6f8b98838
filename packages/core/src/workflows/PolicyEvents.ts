/**
 * What publish and external sync tell subscribers alike: the routing of a group's events and the
 * `service.policy_mapping.*` event of one mapping.
 */
import * as Option from "effect/Option"
import type { PolicyGroupId } from "../Id.js"
import type { Organization } from "../Organization.js"
import type { PolicyGroup, PublishedMapping } from "../PolicyGroup.js"
import { notificationTeam, type RoutingContext } from "../Webhook.js"

/** Policy events of `group` go to org-scoped destinations, its notification team and its own. */
export const policyRouting = (group: PolicyGroup, org: Option.Option<Organization>): RoutingContext => ({
  family: "policy",
  policyGroupId: group.id,
  notificationTeamId: notificationTeam(
    group.notificationRouting,
    Option.match(org, { onNone: () => null, onSome: (o) => o.defaultNotificationTeamId })
  )
})

export const mappingEvent =
  (groupId: PolicyGroupId, changedAt: string, action: "created" | "updated" | "removed") => (m: PublishedMapping) => ({
    type: `service.policy_mapping.${action}` as const,
    data: {
      mapping_id: m.id,
      policy_group_id: groupId,
      phase_id: m.phaseId,
      from_image: m.fromImage,
      to_image: m.toImage,
      platform_scope: m.platformScope ?? "",
      action,
      changed_at: changedAt
    }
  })
