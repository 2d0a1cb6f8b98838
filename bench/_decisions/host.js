// The host of bench/decisions.js, in its own process as a deployed host is: built packages, memory
// store, bench/scan.js's 10,000 published mappings (bench/_scan-peers/policy.js) in three groups that
// apply to every repository, one onboarded repository. Sends `{ ready: { url, orgId, repositoryId,
// apiKey } }` over IPC once it answers, and `{ cpu }` (its process CPU in ms) when asked `"cpu"`.
import { MemoryStore } from "@image-policy/adapters"
import { PolicyStore } from "@image-policy/core"
import { App, NodeRuntime, Seed } from "@image-policy/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { publishedMappings, seeded } from "../_scan-peers/policy.js"

const seed = Number(process.env.BENCH_DECISIONS_SEED ?? 1)
const MAPPINGS = 10_000
const apiKey = "bench-decisions-secret-0123456789abcdefghij"
const orgId = "org_bench"

const { digest, idBytes, int, pick, rng } = seeded(seed)
const { counts, groups } = publishedMappings({ count: MAPPINGS, rng, int, pick, digest, idBytes })

const hostSeed = {
  organizations: [{
    id: orgId,
    name: "Bench",
    edition: "enterprise",
    teams: [{ name: "Platform", routines: [{ name: "Weekly", active: true, intervalDays: 7 }] }],
    vcsConnections: [{
      provider: "github",
      externalAccountName: "bench",
      status: "active",
      fixture: { repositories: [{ externalRepoId: "1", fullName: "bench/app", defaultBranch: "main", branches: ["main"], files: {} }] }
    }],
    policyGroups: groups.map((g) => ({
      name: g.group.name,
      applyToAllRepos: true,
      phases: [{ name: "P0", source: "internal" }, { name: "P1", source: "internal" }]
    })),
    apiKeys: [{ name: "bench", secret: apiKey, role: "Owner", expiresInDays: null }]
  }]
}

// the memory store is built once by the host; its services are kept to publish the generated policy
let stores
const running = await NodeRuntime.start({
  port: 0,
  host: "127.0.0.1",
  store: Layer.tap(MemoryStore.layer, (context) => Effect.sync(() => (stores = context))),
  app: { ...App.defaults, accessLog: false, rateLimit: null, console: false },
  seed: Result.getOrThrow(Seed.parse(JSON.stringify(hostSeed))),
  logLevel: "Warn",
  syncWorker: false,
  scanWorker: false,
  routineWorker: false,
  snoozeExpiryWorker: false,
  snapshotWorker: false
})
const org = running.boot.seeded[0]
await Effect.runPromise(
  PolicyStore.use(({ published }) =>
    Effect.forEach(groups, (g) => {
      const seededGroup = org.policyGroups[g.group.name]
      const phaseIds = [seededGroup.phases["P0"], seededGroup.phases["P1"]]
      const phaseOf = new Map(g.phases.map((p, i) => [p.id, phaseIds[i]]))
      return published.replace(org.id, seededGroup.id, phaseIds, g.published.map((m) => ({ ...m, phaseId: phaseOf.get(m.phaseId) })))
    }, { discard: true })
  ).pipe(Effect.provide(stores))
)
const onboarded = await fetch(`${running.url}/api/v1/org/${org.id}/repositories`, {
  method: "POST",
  headers: { "x-api-key": apiKey, "content-type": "application/json" },
  body: JSON.stringify({
    vcsConnectionId: org.vcsConnections["bench"],
    externalRepoId: "1",
    assignedTeamId: org.teams["Platform"],
    assignedRoutineId: org.routines["Platform/Weekly"],
    branchNames: ["main"]
  })
})
if (onboarded.status !== 201) throw new Error(`onboarding answered ${onboarded.status}: ${await onboarded.text()}`)
const repositoryId = (await onboarded.json()).repository.id

process.on("message", (message) => {
  if (message === "cpu") {
    const cpu = process.cpuUsage()
    process.send({ cpu: (cpu.user + cpu.system) / 1000 })
  } else if (message === "stop") {
    running.stop().then(() => process.exit(0))
  }
})
process.send({ ready: { url: running.url, orgId: org.id, repositoryId, apiKey, counts, mappings: MAPPINGS } })
