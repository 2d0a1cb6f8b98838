// Shared by the HTTP benchmark's servers: the key, the organization, the teams answered by the
// peers, the POST bodies, and the child side of the IPC protocol (ready / cpu / exit).

export const host = "127.0.0.1"
export const apiKey = "bench-secret-0123456789abcdefghijklmnopqrstuvw"
export const orgId = "org_bench"
// ids of the same shape as the host's (prefix + 26 base32 characters)
export const groupId = "pg_01h8r2b3c4d5e6f7g8h9j0k1m2"
export const phaseId = "ph_01h8r2b3c4d5e6f7g8h9j0k1m3"
export const teamNames = ["Platform", "Payments", "Security", "Data", "Mobile"]
export const teams = teamNames.map((name, i) => ({ id: `team_01h8r2b3c4d5e6f7g8h9j0k1n${i}`, name }))

/** The seed the host child loads: one organization, five teams, one group with an internal phase, one key. */
export const seed = {
  organizations: [{
    id: orgId,
    name: "Bench",
    edition: "enterprise",
    teams: teamNames.map((name) => ({ name })),
    policyGroups: [{ name: "Base images", phases: [{ name: "Curated", source: "internal" }] }],
    apiKeys: [{ name: "bench", secret: apiKey, role: "Owner", expiresInDays: null }]
  }]
}

/** Four bodies cycled by the load generator: the first round creates, then every upsert is "unchanged" (200). */
export const bodies = ["alpine:3.19", "node:20", "python:3.12-slim", "nginx:1.27"].map((from, i) =>
  JSON.stringify({ fromImage: from, toImage: `registry.example.com/mirror/${from.split(":")[0]}:pinned-${i}`, reason: "bench" })
)

export const paths = (org, group, phase) => ({
  teams: `/api/v1/org/${org}/teams`,
  mappings: `/api/v1/org/${org}/policy-groups/${group}/phases/${phase}/mappings`
})

/** The peers' "store": the key's principal, and mappings upserted by fromImage. */
export const principals = new Map([[apiKey, { orgId, permissions: new Set(["teams:read", "mappings:write"]) }]])
export const teamsByOrg = new Map([[orgId, teams]])
const mappings = new Map()
let counter = 0
const newId = () => `map_${(++counter).toString(32).padStart(26, "0")}`

/** Upserts a mapping (same fromImage -> same mapping); answers the mapping and whether it was created. */
export const upsert = (input) => {
  const key = `${input.fromImage}|`
  const existing = mappings.get(key)
  const now = new Date().toISOString()
  if (existing !== undefined) {
    if (existing.toImage === input.toImage && existing.reason === input.reason) return { mapping: existing, created: false }
    const mapping = { ...existing, toImage: input.toImage, reason: input.reason, updatedAt: now }
    mappings.set(key, mapping)
    return { mapping, created: false }
  }
  const mapping = {
    id: newId(),
    key,
    fromImage: input.fromImage,
    toImage: input.toImage,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    createdAt: now,
    updatedAt: now,
    phaseId
  }
  mappings.set(key, mapping)
  return { mapping, created: true }
}

/** Child side: tell the parent where we listen, answer CPU-usage questions, exit when the parent goes. */
// Without IPC (started by hand, e.g. under a profiler) it prints the same "ready" message on stdout.
export const ready = (port, routes) => {
  const message = { type: "ready", port, paths: routes ?? paths(orgId, groupId, phaseId) }
  // a normal exit, so `--cpu-prof` writes its profile
  process.on("SIGINT", () => process.exit(0))
  process.on("SIGTERM", () => process.exit(0))
  if (process.send === undefined) return console.log(JSON.stringify(message))
  process.on("message", (m) => {
    if (m?.type === "cpu") process.send({ type: "cpu", id: m.id, usage: process.cpuUsage() })
    if (m?.type === "exit") process.exit(0)
  })
  process.on("disconnect", () => process.exit(0))
  process.send(message)
}
