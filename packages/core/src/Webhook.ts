/**
 * Webhook destinations as stored (spec section 2 "Webhook destination"; contracts section 5).
 * The endpoint URL and the signing secret are stored sealed by the adapters' SecretBox; the core
 * only ever sees the sealed text and the masked preview, so no rule can leak them.
 */
import * as Base64 from "effect/encoding/Base64"
import * as Schema from "effect/Schema"
import { eventTypes } from "./Event.js"
import { PolicyGroupId, TeamId, WebhookId } from "./Id.js"
import type { RoleName } from "./Permission.js"
import { storable } from "./Text.js"

/**
 * The built-in roles that may point the organization's events at a new URL (create a destination,
 * replace its endpoint: spec 5.8), beyond `webhooks:manage`: where events go is a data-egress
 * decision, so a custom role or an explicit permission set never passes, whatever it holds.
 */
export const endpointRoles: ReadonlyArray<RoleName> = ["Owner", "Security Administrator"]

export const WebhookType = Schema.Literals(["generic", "chat"])
export type WebhookType = typeof WebhookType.Type

/** The native message format of a chat destination (docs/webhooks.md "Chat destinations"). */
export const ChatPlatform = Schema.Literals(["slack", "teams", "google-chat"])
export type ChatPlatform = typeof ChatPlatform.Type

/**
 * The message format a destination is sent: null for generic destinations (CloudEvents). A chat
 * destination stored before chat platforms existed has none and was a Slack destination.
 */
export const chatPlatformOf = (d: {
  readonly type: WebhookType
  readonly chatPlatform?: ChatPlatform | undefined
}): ChatPlatform | null => d.type === "chat" ? d.chatPlatform ?? "slack" : null

export const WebhookScope = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("organization") }),
  Schema.Struct({ kind: Schema.Literal("team"), teamId: TeamId }),
  Schema.Struct({ kind: Schema.Literal("policyGroup"), policyGroupId: PolicyGroupId })
])
export type WebhookScope = typeof WebhookScope.Type

export const WebhookStatus = Schema.Literals(["active", "disabled"])
export type WebhookStatus = typeof WebhookStatus.Type

export const WebhookDestination = Schema.Struct({
  id: WebhookId,
  name: Schema.String,
  type: WebhookType,
  /** Chat destinations only; absent on rows written before it existed (Slack then, `chatPlatformOf`). */
  chatPlatform: Schema.optionalKey(ChatPlatform),
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

// Requests, views and errors of the webhook routes (contracts 5) ---------------------------------

const eventTypeNames = eventTypes as ReadonlyArray<string>

/**
 * A create request names a chat platform only for a chat destination (default `slack`, so requests
 * written before platforms existed keep their meaning); on a generic destination it is refused,
 * naming the field, rather than ignored.
 */
export const chatPlatformIssue = (request: {
  readonly type: WebhookType
  readonly chatPlatform?: ChatPlatform | undefined
}): { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string } | undefined =>
  request.type === "generic" && request.chatPlatform !== undefined
    ? { path: ["chatPlatform"], issue: "only chat destinations have a chat platform; omit it for a generic destination" }
    : undefined

export const WebhookCreateRequest = Schema.Struct({
  name: storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(100))),
  type: WebhookType,
  chatPlatform: Schema.optionalKey(ChatPlatform),
  endpointUrl: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2048)),
  audienceTeamId: Schema.optionalKey(TeamId),
  scope: WebhookScope,
  events: Schema.NonEmptyArray(
    Schema.String.check(
      Schema.makeFilter((t) => eventTypeNames.includes(t) || "not an event type of the catalog (GET /api/v1/event-types)")
    )
  ).check(Schema.isMaxLength(eventTypeNames.length))
}).check(Schema.makeFilter((request) => chatPlatformIssue(request) ?? true))
export type WebhookCreateRequest = typeof WebhookCreateRequest.Type

export const EndpointReplaceRequest = Schema.Struct({
  endpointUrl: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2048))
})
export type EndpointReplaceRequest = typeof EndpointReplaceRequest.Type

/** What every read shows: never the endpoint URL nor the signing secret. */
export const WebhookView = Schema.Struct({
  id: WebhookId,
  name: Schema.String,
  type: WebhookType,
  /** Present exactly on chat destinations. */
  chatPlatform: Schema.optionalKey(ChatPlatform),
  endpointPreview: Schema.String,
  audienceTeamId: Schema.NullOr(TeamId),
  scope: WebhookScope,
  events: Schema.Array(Schema.String),
  status: WebhookStatus,
  disabledReason: Schema.optionalKey(Schema.String),
  createdAt: Schema.String
})
export type WebhookView = typeof WebhookView.Type

/** The create answer: the view plus, for generic destinations, the signing secret, shown once. */
export const WebhookCreated = Schema.Struct({ ...WebhookView.fields, signingSecret: Schema.optionalKey(Schema.String) })
export type WebhookCreated = typeof WebhookCreated.Type

export const toView = (d: WebhookDestination): WebhookView => {
  const chatPlatform = chatPlatformOf(d)
  return {
    id: d.id,
    name: d.name,
    type: d.type,
    ...(chatPlatform !== null ? { chatPlatform } : {}),
    endpointPreview: d.endpointPreview,
    audienceTeamId: d.audienceTeamId,
    scope: d.scope,
    events: d.events,
    status: d.status,
    ...(d.disabledReason !== null ? { disabledReason: d.disabledReason } : {}),
    createdAt: d.createdAt
  }
}

/**
 * `https://hooks.example.com/…/a1b2`: enough to recognise a destination, too little to use it
 * (chat webhook URLs are themselves credentials). Falls back to a fixed mask for unparsable input.
 */
export const endpointPreview = (url: string): string => {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]+)(.*)$/i.exec(url)
  if (match === null) return "…"
  const rest = match[3] ?? ""
  const tail = rest.replace(/[^A-Za-z0-9]/g, "").slice(-4)
  return `${match[1]!.toLowerCase()}://${match[2]!.toLowerCase()}/…${tail === "" ? "" : `/${tail}`}`
}

/** `whsec_` + base64 of the random bytes (Standard Webhooks' secret format). */
export const formatSigningSecret = (bytes: Uint8Array): string => `whsec_${Base64.encode(bytes)}`

export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", {
  webhookId: Schema.String
}) {
  override get message() {
    return `no webhook destination ${this.webhookId} in this organization`
  }
}

export class DeliveryNotFound extends Schema.TaggedError<DeliveryNotFound>()("DeliveryNotFound", {
  webhookId: Schema.String,
  eventId: Schema.String
}) {
  override get message() {
    return `no delivery of event ${this.eventId} to webhook destination ${this.webhookId}`
  }
}

/** Only dead letters are replayed: a pending delivery is still being retried, a delivered one is done. */
export class DeliveryNotDead extends Schema.TaggedError<DeliveryNotDead>()("DeliveryNotDead", {
  eventId: Schema.String,
  status: Schema.String
}) {
  override get message() {
    return `only dead letters can be replayed; this delivery is ${this.status}`
  }
}

/** Chat destinations post unsigned native messages: they have no secret to rotate. */
export class NotGenericWebhook extends Schema.TaggedError<NotGenericWebhook>()("NotGenericWebhook", {
  webhookId: WebhookId
}) {
  override get message() {
    return "only generic destinations have a signing secret"
  }
}
