/**
 * What the webhook pages share: who may do what (`webhooks:manage`; pointing events at a URL also
 * needs the Owner or Security Administrator role by name, as the API's `requiresRole` says), the
 * names of teams and policy groups a destination's scope and audience refer to, labels, and the
 * form's checks run with the API's own request schema and field formatter (the typed client refuses
 * to send a body its schema refuses, so the form says what the API would have said).
 */
import type { PolicyGroup, Team } from "@image-policy/core"
import { Input, Webhook } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { type Client, type OrgId, useQuery } from "../../api.js"
import type { ApiError } from "../../problem.js"
import { useSession } from "../../session.js"

export type WebhookView = Webhook.WebhookView

export interface Abilities {
  /** List, test, rotate, replay, delete (`webhooks:manage`). */
  readonly manage: boolean
  /** Create a destination or replace its endpoint: `webhooks:manage` and a role of `Webhook.endpointRoles`. */
  readonly pointAtUrl: boolean
}

export const useAbilities = (): Abilities => {
  const { session, can } = useSession()
  const manage = can("webhooks:manage")
  const role = session.user.role
  const pointAtUrl = manage && role !== undefined && (Webhook.endpointRoles as ReadonlyArray<string>).includes(role)
  return { manage, pointAtUrl }
}

/** Every page of a cursor list (names for scope and audience; at most `maxPages` pages of 200). */
export const collectAll = <A>(
  page: (
    cursor: string | undefined
  ) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string | undefined }, unknown>,
  maxPages = 25
): Effect.Effect<ReadonlyArray<A>, unknown> =>
  Effect.gen(function*() {
    const all: Array<A> = []
    let cursor: string | undefined
    for (let i = 0; i < maxPages; i++) {
      const result = yield* page(cursor)
      all.push(...result.items)
      if (result.nextCursor === undefined) break
      cursor = result.nextCursor
    }
    return all
  })

export interface Names {
  readonly teams: ReadonlyArray<Team.Team>
  readonly groups: ReadonlyArray<typeof PolicyGroup.PolicyGroupListItem.Type>
  readonly team: (id: string | null | undefined) => string
  readonly group: (id: string) => string
}

const teamsAndGroups = (api: Client, orgId: OrgId) =>
  Effect.all([
    collectAll((cursor) => api.organization.listTeams({ params: { orgId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } })),
    collectAll((cursor) => api.policy.listPolicyGroups({ params: { orgId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } }))
  ], { concurrency: 2 })

/** Teams and policy groups by id, for showing and choosing scopes and audiences. */
export const useNames = (): Names & { readonly loading: boolean; readonly error: ApiError | undefined } => {
  const query = useQuery(teamsAndGroups, [])
  const teams = query.data?.[0] ?? []
  const groups = query.data?.[1] ?? []
  return {
    teams,
    groups,
    loading: query.loading,
    error: query.error,
    team: (id) => id === null || id === undefined ? "None" : teams.find((t) => t.id === id)?.name ?? id,
    group: (id) => groups.find((g) => g.id === id)?.name ?? id
  }
}

export const scopeLabel = (scope: Webhook.WebhookScope, names: Pick<Names, "team" | "group">): string =>
  scope.kind === "organization"
    ? "Organization"
    : scope.kind === "team"
    ? `Team: ${names.team(scope.teamId)}`
    : `Policy group: ${names.group(scope.policyGroupId)}`

export const chatPlatformLabels: Record<Webhook.ChatPlatform, string> = {
  slack: "Slack",
  teams: "Microsoft Teams",
  "google-chat": "Google Chat"
}

export const typeLabel = (w: Pick<WebhookView, "type" | "chatPlatform">, short = false): string =>
  w.type === "generic"
    ? short ? "Generic" : "Generic (signed CloudEvents)"
    : `Chat: ${chatPlatformLabels[w.chatPlatform ?? "slack"]}`

/** `service.policy_group.published` -> `policy_group.published` (the family is shown beside it). */
export const shortEventType = (type: string | null): string => type === null ? "(event removed)" : type.replace(/^service\./, "")

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" })
export const formatTime = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined) return "—"
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date)
}

const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" })
/** The time alone on today's date (attempt lists: the row shows the date), else date and time. */
export const formatShortTime = (iso: string): string => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return date.toDateString() === new Date().toDateString() ? timeOnly.format(date) : dateTime.format(date)
}

/** "in 4 s", "12 s ago": for the next retry of a pending delivery. */
export const relative = (iso: string | null, now = Date.now()): string => {
  if (iso === null) return "—"
  const ms = Date.parse(iso) - now
  if (Number.isNaN(ms)) return iso
  const s = Math.round(Math.abs(ms) / 1000)
  const text = s < 60 ? `${s} s` : s < 3600 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`
  return ms >= 0 ? `in ${text}` : `${text} ago`
}

/** What went wrong, in words: `HTTP 500`, `timeout`, `network error`. */
export const attemptError = (
  a: { readonly statusCode: number | null; readonly errorCode: string | null; readonly outcome: string }
): string => {
  const parts: Array<string> = []
  if (a.statusCode !== null) parts.push(`HTTP ${a.statusCode}`)
  if (a.errorCode !== null) parts.push(a.errorCode.replace(/-/g, " "))
  if (parts.length === 0) parts.push(a.outcome === "success" ? "delivered" : a.outcome)
  return parts.join(", ")
}

/**
 * A body checked against the API's schema before it is sent: `undefined` when the API would take
 * it, else the 400 the API would answer (same paths, same messages), to show at the fields.
 */
export const checkAgainst = <S extends Schema.Top>(schema: S, body: unknown): ApiError | undefined => {
  const exit = Schema.decodeUnknownExit(Schema.toType(schema) as unknown as Schema.Codec<unknown, unknown>)(body, { errors: "all" })
  if (Exit.isSuccess(exit)) return undefined
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  const error: unknown = failure !== undefined && "error" in failure ? failure.error : undefined
  const fieldErrors: Record<string, string> = {}
  if (Schema.isSchemaError(error)) {
    for (const e of Input.fieldErrors(error)) {
      fieldErrors[e.path] = fieldErrors[e.path] === undefined ? e.message : `${fieldErrors[e.path]} ${e.message}`
    }
  }
  return {
    status: 400,
    title: "Invalid request",
    detail: "Some fields need attention before this can be saved.",
    fieldErrors
  }
}

/** The first field error at `path` or below it (`events` covers `events[2]`). */
export const errorAt = (error: ApiError | undefined, path: string): string | undefined => {
  if (error === undefined) return undefined
  const exact = error.fieldErrors[path]
  if (exact !== undefined) return exact
  const key = Object.keys(error.fieldErrors).find((k) => k.startsWith(`${path}.`) || k.startsWith(`${path}[`))
  return key === undefined ? undefined : error.fieldErrors[key]
}
