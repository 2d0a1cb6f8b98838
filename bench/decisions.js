// Decision API benchmark (issue 18, Performance): 100,000 image references resolved through the RPC
// stream (`DecisionClient.resolve`, `POST /api/v1/org/{orgId}/rpc`, NDJSON) on loopback against our
// host (built packages, memory store) holding bench/scan.js's 10,000 published mappings (exact,
// repository and pattern fromImages, bench/_scan-peers/policy.js) in three groups that apply to
// every repository; the references name one onboarded repository. The peer is the REST resolve
// route (`GET /repositories/{id}/resolve`) for the same work: a sample of REST calls is timed (8 in
// flight) and scaled to 100,000, which the output says. Before any figure is printed the RPC
// decisions must name the REST answers' mappings on that sample. Client and host share this process,
// so the CPU figure is both sides'. BENCH_DECISIONS_SEED (default 1) changes the data,
// BENCH_DECISIONS_COUNT (default 100000) the references, BENCH_DECISIONS_REST_SAMPLE (default 2000)
// the REST sample. Target: under 1 s of wall time. Prints figures and ratios; asserts nothing.
import { MemoryStore } from "@image-policy/adapters"
import { DecisionClient } from "@image-policy/client"
import { PolicyStore } from "@image-policy/core"
import { App, NodeRuntime, Seed } from "@image-policy/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { loadavg } from "node:os"
import { publishedMappings, seeded } from "./_scan-peers/policy.js"

const seed = Number(process.env.BENCH_DECISIONS_SEED ?? 1)
const COUNT = Number(process.env.BENCH_DECISIONS_COUNT ?? 100_000)
const REST_SAMPLE = Number(process.env.BENCH_DECISIONS_REST_SAMPLE ?? 2_000)
const MAPPINGS = 10_000
const apiKey = "bench-decisions-secret-0123456789abcdefghij"
const orgId = "org_bench"

// deterministic randomness: the same seed gives the same repository, references and policy
const { digest, idBytes, image, int, pick, rng } = seeded(seed)

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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
const row = (label, value) => console.log(`  ${label.padEnd(56)} ${value}`)

export const main = async () => {
  console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
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
  try {
    const org = running.boot.seeded[0]
    await Effect.runPromise(
      PolicyStore.use(({ published }) =>
        Effect.forEach(groups, (g) => {
          const seeded = org.policyGroups[g.group.name]
          const phaseIds = [seeded.phases["P0"], seeded.phases["P1"]]
          const phaseOf = new Map(g.phases.map((p, i) => [p.id, phaseIds[i]]))
          return published.replace(org.id, seeded.id, phaseIds, g.published.map((m) => ({ ...m, phaseId: phaseOf.get(m.phaseId) })))
        }, { discard: true })
      ).pipe(Effect.provide(stores))
    )
    const headers = { "x-api-key": apiKey, "content-type": "application/json" }
    const onboarded = await fetch(`${running.url}/api/v1/org/${org.id}/repositories`, {
      method: "POST",
      headers,
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
    const requests = Array.from({ length: COUNT }, () => {
      const platform = rng() < 0.15 ? pick(["linux/amd64", "linux/arm64"]) : undefined
      return { image: image(), repositoryId, ...(platform ? { platform } : {}) }
    })
    console.log(
      `host on loopback: ${MAPPINGS} published mappings (${counts.exact} exact, ${counts.repository} repository, ${counts.pattern} pattern); ` +
        `${COUNT} references of one repository, ${new Set(requests.map((r) => `${r.image} ${r.platform ?? ""}`)).size} distinct`
    )

    const resolveAll = (list) =>
      Effect.runPromise(Effect.scoped(Effect.flatMap(
        DecisionClient.make({ baseUrl: running.url, orgId: org.id, apiKey }),
        (client) => Stream.runCollect(client.resolve(list))
      )))
    const timed = async (f) => {
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const value = await f()
      const cpu = process.cpuUsage(c0)
      return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, value }
    }

    // the REST peer on a sample, and the check that both name the same mappings
    const sample = requests.slice(0, REST_SAMPLE)
    const restOne = async (r) => {
      const query = new URLSearchParams({ image: r.image, ...(r.platform ? { platform: r.platform } : {}) })
      const answer = await fetch(`${running.url}/api/v1/org/${org.id}/repositories/${repositoryId}/resolve?${query}`, { headers })
      const body = await answer.json()
      return answer.status === 200 ? body.resolved?.mapping.id ?? null : `status ${answer.status}`
    }
    const rest = await timed(async () => {
      const answers = new Array(sample.length)
      let next = 0
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < sample.length) {
          const i = next++
          answers[i] = await restOne(sample[i])
        }
      }))
      return answers
    })
    const decided = await resolveAll(sample)
    for (let i = 0; i < sample.length; i++) {
      const mine = decided[i].invalid ? `status 400` : decided[i].resolution?.mappingId ?? null
      if (mine !== rest.value[i]) {
        console.log(`  the RPC decision differs from the REST resolve for ${sample[i].image}: ${mine} vs ${rest.value[i]}; no figures`)
        return
      }
    }
    row("RPC decisions == REST resolve on the sample", `${sample.length} references agree`)

    // the RPC stream: a warm-up, then the median of 3
    await resolveAll(requests.slice(0, 20_000))
    const runs = []
    for (let i = 0; i < 3; i++) runs.push(await timed(() => resolveAll(requests)))
    if (runs.some((r) => r.value.length !== COUNT)) throw new Error("the stream lost decisions")
    const rpcMs = median(runs.map((r) => r.ms))
    const rpcCpuMs = median(runs.map((r) => r.cpuMs))
    const restScaledMs = rest.ms * (COUNT / sample.length)
    row(`RPC stream, ${fmt(COUNT)} references (median of 3)`, `${fmt(rpcMs)} ms wall, ${fmt(rpcCpuMs)} ms CPU (client and host)`)
    row("  per wall second", `${fmt(COUNT / rpcMs * 1000)} references/s`)
    row(`REST resolve, ${fmt(sample.length)} calls (8 in flight)`, `${fmt(rest.ms)} ms wall, ${fmt(rest.cpuMs)} ms CPU`)
    row(`  scaled to ${fmt(COUNT)} references (x${fmt(COUNT / sample.length)})`, `${fmt(restScaledMs)} ms wall`)
    row("RPC stream vs REST resolve, same work", `${fmt(restScaledMs / rpcMs)}x faster`)
    row("target: 100,000 references under 1 s wall", rpcMs < 1000 ? "MET" : "MISSED")
  } finally {
    await running.stop()
  }
}
