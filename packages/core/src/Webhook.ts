/**
 * Webhook destinations as stored (spec section 2 "Webhook destination"; contracts section 5).
 * The endpoint URL and the signing secret are stored sealed by the adapters' SecretBox; the core
 * only ever sees the sealed text and the masked preview, so no rule can leak them.
 */
import * as Schema from "effect/Schema"
import { PolicyGroupId, TeamId, WebhookId } from "./Id.js"

export const WebhookType = Schema.Literal("generic", "chat")
export type WebhookType = typeof WebhookType.Type

export const WebhookScope = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("organization") }),
  Schema.Struct({ kind: Schema.Literal("team"), teamId: TeamId }),
  Schema.Struct({ kind: Schema.Literal("policyGroup"), policyGroupId: PolicyGroupId })
)
export type WebhookScope = typeof WebhookScope.Type

export const WebhookStatus = Schema.Literal("active", "disabled")
export type WebhookStatus = typeof WebhookStatus.Type

export const WebhookDestination = Schema.Struct({
  id: WebhookId,
  name: Schema.String,
  type: WebhookType,
  endpointSealed: Schema.String,
  endpointPreview: Schema.String,
  signingSecretSealed: Schema.NullOr(Schema.String),
  audienceTeamId: Schema.NullOr(TeamId),
  scope: WebhookScope,
  events: Schema.Array(Schema.String),
  status: WebhookStatus,
  disabledReason: Schema.NullOr(Schema.String),
  createdAt: Schema.String
})
export type WebhookDestination = typeof WebhookDestination.Type

/** What an event is about, for routing (contracts section 5 "Routing"). */
export type RoutingContext =
  | { readonly family: "snooze" | "remediation"; readonly repositoryTeamId: TeamId | null }
  | {
    readonly family: "policy"
    readonly policyGroupId: PolicyGroupId
    /** The group's notification team after applying `inherit` / `none` / a team. */
    readonly notificationTeamId: TeamId | null
  }
  | { readonly family: "webhook"; readonly webhookId: WebhookId }

/**
 * The destinations an event goes to: active ones that selected its type and whose scope matches.
 * Snooze (and remediation) events go to organization-scoped destinations and to those scoped to the
 * repository's assigned team; policy events to organization-scoped ones, to the group's notification
 * team and to destinations scoped to that group. A test event goes only to its own destination.
 */
export const route = (
  eventType: string,
  context: RoutingContext,
  destinations: ReadonlyArray<WebhookDestination>
): ReadonlyArray<WebhookId> =>
  destinations
    .filter((d) => {
      if (context.family === "webhook") return d.id === context.webhookId
      if (d.status !== "active" || !d.events.includes(eventType)) return false
      switch (d.scope.kind) {
        case "organization":
          return true
        case "team":
          return context.family === "policy"
            ? context.notificationTeamId === d.scope.teamId
            : context.repositoryTeamId === d.scope.teamId
        case "policyGroup":
          return context.family === "policy" && context.policyGroupId === d.scope.policyGroupId
      }
    })
    .map((d) => d.id)

/** The team a policy group's events are routed to: `inherit` = the org default, `none` = nobody. */
export const notificationTeam = (
  routing: { readonly kind: "inherit" } | { readonly kind: "none" } | { readonly kind: "team"; readonly teamId: TeamId },
  orgDefaultTeamId: TeamId | null
): TeamId | null => routing.kind === "inherit" ? orgDefaultTeamId : routing.kind === "team" ? routing.teamId : null
