/**
 * The web console's pages, as paths under the service's public URL (issue 15 "Chat destinations";
 * the console itself is issue 17). This module is the one place that names them: chat messages
 * link to them ("Open"), and the console serves exactly these patterns, so a link sent today keeps
 * working when the console lands. A page is addressed by the ids in its path only, never by a name.
 *
 * | page | pattern |
 * |---|---|
 * | organization home | `/console/org/:orgId` |
 * | policy group (phases, draft, published mappings) | `/console/org/:orgId/policy-groups/:policyGroupId` |
 * | phase of a group (its mappings) | `/console/org/:orgId/policy-groups/:policyGroupId/phases/:phaseId` |
 * | repository (branches, findings, remediation requests) | `/console/org/:orgId/repositories/:repositoryId` |
 * | snooze request | `/console/org/:orgId/snooze-requests/:snoozeRequestId` |
 * | webhook destination (its deliveries) | `/console/org/:orgId/webhooks/:webhookId` |
 *
 * Links never point at API JSON (`/api/v1/...`): a person follows them in a browser.
 */

/** The route patterns, `:name` for a path parameter (the form `HttpRouter` mounts). */
export const patterns = {
  organization: "/console/org/:orgId",
  policyGroup: "/console/org/:orgId/policy-groups/:policyGroupId",
  phase: "/console/org/:orgId/policy-groups/:policyGroupId/phases/:phaseId",
  repository: "/console/org/:orgId/repositories/:repositoryId",
  snoozeRequest: "/console/org/:orgId/snooze-requests/:snoozeRequestId",
  webhook: "/console/org/:orgId/webhooks/:webhookId"
} as const

export type Page = keyof typeof patterns

/** The parameter names of a pattern, e.g. `"orgId" | "policyGroupId"`. */
type Params<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | Params<`/${Rest}`>
  : P extends `${string}:${infer Name}` ? Name
  : never

export type PageParams<K extends Page> = { readonly [N in Params<(typeof patterns)[K]>]: string }

/**
 * `.` and `..` cannot be a path segment: a browser resolves them as path steps, and their
 * percent-encoded forms (`%2E`, `.%2E`, ...) alike (WHATWG URL). No id is one (ids are `prefix_…`, Id.ts); `forEvent` treats such an
 * id in event data as absent.
 */
const isDotSegment = (id: string): boolean => id === "." || id === ".."

const segment = (id: string): string => encodeURIComponent(id)

/** The path of one page, each id percent-encoded as one path segment. */
export const path = <K extends Page>(page: K, params: PageParams<K>): string =>
  patterns[page].replace(/:([A-Za-z]+)/g, (_, name: string) => segment((params as Record<string, string>)[name]!))

/** The absolute URL of a path under the public URL (which may itself carry a path prefix). */
export const url = (publicUrl: string, pagePath: string): string => `${publicUrl.replace(/\/+$/, "")}${pagePath}`

const text = (data: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const value = data[key]
  return typeof value === "string" && value !== "" && !isDotSegment(value) ? value : undefined
}

/**
 * The page an event is about, from the ids its data carries (Event.ts catalog): a mapping event
 * opens its phase, a group event its group, a snooze event its request, a remediation event its
 * repository, a test event its destination. Data without the id a page needs (an unknown type,
 * or data that is not an object) opens the organization's home.
 */
export const forEvent = (orgId: string, type: string, data: unknown): string => {
  const d: Readonly<Record<string, unknown>> = typeof data === "object" && data !== null && !Array.isArray(data)
    ? data as Record<string, unknown>
    : {}
  const group = text(d, "policy_group_id")
  const phase = text(d, "phase_id")
  const repository = text(d, "repository_id")
  const snooze = text(d, "snooze_request_id")
  const webhook = text(d, "webhook_id")
  if (type.startsWith("service.policy_mapping.") && group !== undefined && phase !== undefined) {
    return path("phase", { orgId, policyGroupId: group, phaseId: phase })
  }
  if (type.startsWith("service.policy_") && group !== undefined) return path("policyGroup", { orgId, policyGroupId: group })
  if (type.startsWith("service.snooze_request.") && snooze !== undefined) {
    return path("snoozeRequest", { orgId, snoozeRequestId: snooze })
  }
  if (type.startsWith("service.remediation_pull_request.") && repository !== undefined) {
    return path("repository", { orgId, repositoryId: repository })
  }
  if (type === "service.webhook.test" && webhook !== undefined) return path("webhook", { orgId, webhookId: webhook })
  return path("organization", { orgId })
}
