/**
 * What the cross-organization (BOLA) test walks: the organization routes of the OpenAPI document,
 * ids that exist nowhere, and a valid sample request per route, so only the path decides the answer.
 */
export interface Route {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** OpenAPI path template, e.g. `/api/v1/org/{orgId}/repositories/{repositoryId}/resolve` */
  readonly template: string
  readonly params: ReadonlyArray<string>
}

export const ORG_PREFIX = "/api/v1/org/{orgId}"

export const routesOf = (document: any): Array<Route> => {
  const routes: Array<Route> = []
  for (const [template, operations] of Object.entries<any>(document.paths)) {
    if (!template.startsWith(ORG_PREFIX)) continue
    for (const method of Object.keys(operations)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue
      const params = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
      routes.push({ method: method.toUpperCase() as Route["method"], template, params })
    }
  }
  return routes
}

/** Ids of this shape exist nowhere; used for parameters we hold no real id for, and as the "unknown" twin. */
export const unknownId = (param: string): string => {
  const prefix: Record<string, string> = {
    teamId: "team",
    connectionId: "vcs",
    repositoryId: "repo",
    groupId: "pg",
    phaseId: "ph",
    keyId: "key",
    snoozeRequestId: "snz",
    webhookId: "wh",
    eventId: "evt",
    memberId: "mbr",
    roleId: "role"
  }
  return `${prefix[param] ?? "id"}_00000000000000000000000000`
}

/** A request each route accepts from its own organization: valid bodies, so only the path decides the answer. */
export const sampleFor = (
  route: Route,
  acmeIds: Readonly<Record<string, string>>,
  weeklyRoutineId: string | undefined
): { readonly query: string; readonly body?: unknown } => {
  const key = `${route.method} ${route.template.slice(ORG_PREFIX.length)}`
  switch (key) {
    case "GET /vcs-connections/{connectionId}/available-branches":
      return { query: "?repositoryFullName=acme/api&defaultBranch=main" }
    case "GET /repositories/{repositoryId}/resolve":
      return { query: "?image=node:20" }
    case "POST /repositories":
      return {
        query: "",
        body: {
          vcsConnectionId: acmeIds["connectionId"],
          externalRepoId: "1002",
          assignedTeamId: acmeIds["teamId"],
          assignedRoutineId: weeklyRoutineId,
          branchNames: ["main"]
        }
      }
    case "POST /rpc":
      return {
        query: "",
        body: {
          _tag: "Request",
          id: "1",
          tag: "Explain",
          payload: { image: "node:20", repositoryId: acmeIds["repositoryId"] },
          headers: []
        }
      }
    case "POST /repositories/{repositoryId}/policy-groups":
      return { query: "", body: { assignments: [] } }
    case "POST /policy-groups/{groupId}/phases":
      return { query: "", body: { name: "bola", sourceType: "internal" } }
    case "POST /policy-groups/{groupId}/phases/{phaseId}/mappings":
      return { query: "", body: { fromImage: "node:20", toImage: "node:20.11.1", reason: "bola" } }
    case "POST /api-keys":
      return { query: "", body: { name: "bola", role: "Owner", expiresInDays: 30 } }
    case "POST /snooze-requests":
      return {
        query: "",
        body: { repositoryId: acmeIds["repositoryId"], fromImage: "node:20", reason: "bola", until: "2999-01-01T00:00:00Z" }
      }
    case "POST /snooze-requests/{snoozeRequestId}/review":
      return { query: "", body: { decision: "approve" } }
    case "POST /webhooks":
      return {
        query: "",
        body: {
          name: "bola",
          type: "generic",
          endpointUrl: "https://hooks.example.com/bola",
          audienceTeamId: acmeIds["teamId"],
          scope: { kind: "team", teamId: acmeIds["teamId"] },
          events: ["service.snooze_request.created"]
        }
      }
    case "PUT /webhooks/{webhookId}/endpoint":
    case "PUT /webhooks/{id}/endpoint":
      return { query: "", body: { endpointUrl: "https://hooks.example.com/bola" } }
    // organization administration (issue 15): valid bodies, so only the path decides the answer
    case "POST /teams":
    case "PATCH /teams/{teamId}":
      return { query: "", body: { name: "bola" } }
    case "POST /teams/{teamId}/routines":
      return { query: "", body: { name: "bola", intervalDays: 7 } }
    case "PATCH /routines/{routineId}":
      return { query: "", body: { active: false } }
    case "POST /vcs-connections":
      return { query: "", body: { provider: "github", externalAccountName: "bola", token: "ghp_bola" } }
    case "PUT /vcs-connections/{connectionId}/token":
      return { query: "", body: { token: "ghp_bola" } }
    case "PATCH /vcs-connections/{connectionId}":
      return { query: "", body: { status: "inactive" } }
    case "PATCH /repositories/{repositoryId}":
      return { query: "", body: { branchNames: ["main"] } }
    case "PATCH /settings":
      return { query: "", body: { cooldownSeconds: 5 } }
    default:
      return route.method === "GET" || route.method === "DELETE" ? { query: "" } : { query: "", body: {} }
  }
}
