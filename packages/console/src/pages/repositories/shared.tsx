/**
 * Helpers of the repository pages (list, onboarding wizard, repository page) and the snooze
 * request pages: ids from the address bar typed as the API's ids, scan status badges, dates as
 * people read them, and the organization's teams, routines and policy groups by id.
 */
import type { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { type ApiError, useQuery } from "../../api.js"

export type RepositoryId = Id.RepositoryId
export type TeamId = Id.TeamId
export type RoutineId = Id.RoutineId
export type VcsConnectionId = Id.VcsConnectionId
export type PolicyGroupId = Id.PolicyGroupId
export type SnoozeRequestId = Id.SnoozeRequestId

/** An id from the address or a list, as the typed client takes it (the server answers an unknown one with 404). */
export const asId = <I extends string>(value: string): I => value as I

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" })

/** "12 Mar 2026, 14:05" in the reader's zone; the ISO text itself when it does not parse. */
export const formatDateTime = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined) return "—"
  const t = Date.parse(iso)
  return Number.isNaN(t) ? iso : dateTime.format(t)
}

export const formatDate = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined) return "—"
  const t = Date.parse(iso)
  return Number.isNaN(t) ? iso : dateOnly.format(t)
}

const scanBadge: Record<string, string> = {
  succeeded: "badge badge--success",
  failed: "badge badge--danger",
  running: "badge badge--warning",
  queued: "badge"
}

const scanWords: Record<string, string> = {
  succeeded: "Scanned",
  failed: "Scan failed",
  running: "Scanning",
  queued: "Scan queued"
}

/** A scan status as a badge whose text says it in words (never colour alone). */
export function ScanStatus({ status }: { readonly status: string }) {
  return <span className={scanBadge[status] ?? "badge"}>{scanWords[status] ?? status}</span>
}

const failureWords: Record<string, string> = {
  "provider-not-configured": "the connection has no usable token",
  "provider-unauthorized": "the provider refused the connection's token",
  "provider-not-found": "the provider no longer has the repository or branch",
  "provider-rate-limited": "the provider's rate limit was reached",
  "provider-unavailable": "the provider could not be reached",
  "too-large": "the branch has too many files to scan",
  abandoned: "the scan stopped three times without finishing"
}

/** Why a scan failed, in words. */
export const scanFailureText = (failure: string | null): string => failure === null ? "" : failureWords[failure] ?? failure

/** Every item of a cursor-paged list (a few pages at most: teams, routines, policy groups). */
export interface Lookup<A> {
  readonly items: ReadonlyArray<A>
  readonly byId: ReadonlyMap<string, A>
  readonly loading: boolean
  readonly error: ApiError | undefined
  readonly reload: () => void
}

const toLookup = <A extends { readonly id: string }>(
  q: { data: ReadonlyArray<A> | undefined; loading: boolean; error: Lookup<A>["error"]; reload: () => void }
): Lookup<A> => {
  const items = q.data ?? []
  return { items, byId: new Map(items.map((i) => [i.id, i] as const)), loading: q.loading, error: q.error, reload: q.reload }
}

/** The organization's teams (up to 200: one page of the largest size). */
export const useTeams = (enabled = true) =>
  toLookup(useQuery(
    (api, orgId) =>
      enabled
        ? api.organization.listTeams({ params: { orgId }, query: { limit: 200 } }).pipe(mapItems)
        : emptyList(),
    [enabled]
  ))

/** Every routine of the organization with its team (up to 200). */
export const useRoutines = (enabled = true) =>
  toLookup(useQuery(
    (api, orgId) =>
      enabled
        ? api.organization.listRoutines({ params: { orgId }, query: { limit: 200 } }).pipe(mapItems)
        : emptyList(),
    [enabled]
  ))

/** The organization's policy groups (up to 200). */
export const usePolicyGroups = (enabled = true) =>
  toLookup(useQuery(
    (api, orgId) =>
      enabled
        ? api.policy.listPolicyGroups({ params: { orgId }, query: { limit: 200 } }).pipe(mapItems)
        : emptyList(),
    [enabled]
  ))

const mapItems = <A, E>(e: Effect.Effect<{ readonly items: ReadonlyArray<A> }, E>) => Effect.map(e, (page) => page.items)
const emptyList = () => Effect.succeed([] as ReadonlyArray<never>)
