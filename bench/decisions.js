// Decision API benchmark (issue 18, Performance): 100,000 image references resolved through the RPC
// stream (`DecisionClient.resolve`, `POST /api/v1/org/{orgId}/rpc`, NDJSON) on loopback against our
// host (bench/_decisions/host.js: built packages, memory store, in its own process as deployed)
// holding bench/scan.js's 10,000 published mappings (exact, repository and pattern fromImages,
// bench/_scan-peers/policy.js) in three groups that apply to every repository; the references name
// one onboarded repository. The peer is the REST resolve route (`GET /repositories/{id}/resolve`) for
// the same work: a sample of REST calls is timed (8 in flight) and scaled to 100,000, which the
// output says. Before any figure is printed the RPC decisions must name the REST answers' mappings on
// that sample. CPU is reported for the client and the host process apart. BENCH_DECISIONS_SEED
// (default 1) changes the data, BENCH_DECISIONS_COUNT (default 100000) the references,
// BENCH_DECISIONS_REST_SAMPLE (default 2000) the REST sample, BENCH_DECISIONS_HTTP (node or fetch;
// default node) the client's HTTP client. Target: under 1 s of wall time.
// Prints figures and ratios; asserts nothing.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { DecisionClient } from "@image-policy/client"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { fork } from "node:child_process"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { publishedMappings, seeded } from "./_scan-peers/policy.js"

const seed = Number(process.env.BENCH_DECISIONS_SEED ?? 1)
// the HTTP client under DecisionClient: Node's own http module through @effect/platform-node
// (`makeWith`), what docs/decision-api.md advises a Node caller, or the platform's fetch (`make`)
const HTTP = process.env.BENCH_DECISIONS_HTTP ?? "node"
const clientOf = (options) =>
  HTTP === "fetch"
    ? DecisionClient.make(options)
    : Effect.provide(DecisionClient.makeWith(options), NodeHttpClient.layerNodeHttp)
const COUNT = Number(process.env.BENCH_DECISIONS_COUNT ?? 100_000)
const REST_SAMPLE = Number(process.env.BENCH_DECISIONS_REST_SAMPLE ?? 2_000)

// deterministic randomness: the host draws the policy from the same seed; drawing it here too
// leaves this generator where the host's is, so the references hit its mappings as they would
const { digest, idBytes, image, int, pick, rng } = seeded(seed)
publishedMappings({ count: 10_000, rng, int, pick, digest, idBytes })

/** The host process, and a way to ask it for its CPU time so far (ms). */
const startHost = () =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./_decisions/host.js", import.meta.url)), [], {
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const waiting = []
    child.on("message", (message) => {
      if (message.ready) resolve({ ...message.ready, child, cpu })
      else if (message.cpu !== undefined) waiting.shift()(message.cpu)
    })
    child.once("exit", (code) => reject(new Error(`the bench host exited with ${code}`)))
    const cpu = () =>
      new Promise((ok) => {
        waiting.push(ok)
        child.send("cpu")
      })
  })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
const row = (label, value) => console.log(`  ${label.padEnd(56)} ${value}`)

export const main = async () => {
  console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const host = await startHost()
  const { apiKey, counts, mappings, orgId, repositoryId } = host
  try {
    const headers = { "x-api-key": apiKey }
    const requests = Array.from({ length: COUNT }, () => {
      const platform = rng() < 0.15 ? pick(["linux/amd64", "linux/arm64"]) : undefined
      return { image: image(), repositoryId, ...(platform ? { platform } : {}) }
    })
    console.log(
      `host on loopback: ${mappings} published mappings (${counts.exact} exact, ${counts.repository} repository, ${counts.pattern} pattern); ` +
        `${COUNT} references of one repository, ${new Set(requests.map((r) => `${r.image} ${r.platform ?? ""}`)).size} distinct; ` +
        `DecisionClient over ${HTTP === "fetch" ? "fetch" : "@effect/platform-node's node:http client"}`
    )

    const resolveAll = (list) =>
      Effect.runPromise(Effect.scoped(Effect.flatMap(
        clientOf({ baseUrl: host.url, orgId, apiKey }),
        (client) => Stream.runCollect(client.resolve(list))
      )))
    const timed = async (f) => {
      const h0 = await host.cpu()
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const value = await f()
      const ms = performance.now() - t0
      const cpu = process.cpuUsage(c0)
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000, hostCpuMs: (await host.cpu()) - h0, value }
    }

    // the REST peer on a sample, and the check that both name the same mappings
    const sample = requests.slice(0, REST_SAMPLE)
    const restOne = async (r) => {
      const query = new URLSearchParams({ image: r.image, ...(r.platform ? { platform: r.platform } : {}) })
      const answer = await fetch(`${host.url}/api/v1/org/${orgId}/repositories/${repositoryId}/resolve?${query}`, { headers })
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
    for (let i = 0; i < 3; i++) {
      const run = await timed(() => resolveAll(requests))
      if (run.value.length !== COUNT) throw new Error("the stream lost decisions")
      // each run's decisions are checked and dropped: three runs' 300,000 kept alive would make the
      // collector's work, not the client's, the figure
      runs.push({ ...run, value: undefined })
    }
    const rpcMs = median(runs.map((r) => r.ms))
    const rpcCpuMs = median(runs.map((r) => r.cpuMs))
    const rpcHostCpuMs = median(runs.map((r) => r.hostCpuMs))
    const restScaledMs = rest.ms * (COUNT / sample.length)
    row(
      `RPC stream, ${fmt(COUNT)} references (median of 3)`,
      `${fmt(rpcMs)} ms wall; CPU ${fmt(rpcCpuMs)} ms client, ${fmt(rpcHostCpuMs)} ms host`
    )
    row("  per wall second", `${fmt(COUNT / rpcMs * 1000)} references/s`)
    row(
      `REST resolve, ${fmt(sample.length)} calls (8 in flight)`,
      `${fmt(rest.ms)} ms wall; CPU ${fmt(rest.cpuMs)} ms client, ${fmt(rest.hostCpuMs)} ms host`
    )
    row(`  scaled to ${fmt(COUNT)} references (x${fmt(COUNT / sample.length)})`, `${fmt(restScaledMs)} ms wall`)
    row("RPC stream vs REST resolve, same work", `${fmt(restScaledMs / rpcMs)}x faster`)
    row("target: 100,000 references under 1 s wall", rpcMs < 1000 ? "MET" : "MISSED")
  } finally {
    host.child.removeAllListeners("exit")
    host.child.send("stop")
  }
}
