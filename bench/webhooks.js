// Webhook delivery benchmark (issue "Webhooks end to end", Performance): signed deliveries per
// second from the host's delivery worker to a local receiver, on the memory store and on
// PostgreSQL, beside raw `standardwebhooks` signing and a plain `fetch` loop to the same receiver
// with the same concurrency. Prints figures, ratios and the issues' targets; asserts nothing.
//
// Children (bench/_webhooks): the receiver (raw node:http: reads the body, verifies the signature
// unless BENCH_VERIFY=0, answers 204) pinned to core 0; our worker (the built host's
// `NodeRuntime.start` with its delivery worker at its defaults) and the peers pinned to core 1.
// Events are queued straight into the outbox before the worker starts, so the figure is the
// worker draining a backlog: from the start of the host to the receiver holding every delivery.
//
// BENCH_DELIVERIES (default 10000) per memory-store run, BENCH_ROUNDS (default 3) memory runs,
// BENCH_PG_DELIVERIES (default 3000), BENCH_DESTINATIONS (default 32), BENCH_BATCH and
// BENCH_CONCURRENCY (default: the worker's defaults), BENCH_PROFILE=<dir> (--cpu-prof of our worker).
// BENCH_WEBHOOKS_BASELINE=<dir>: a snapshot of earlier built packages (`node bench/_snapshot.js <dir>`)
// runs as "baseline" beside each memory-store run and after the PostgreSQL run (on a database of its
// own), so a change is measured against it under the same load.
// PostgreSQL: DATABASE_URL or 127.0.0.1:5432; a throw-away database is created and dropped.
import { copyFileSync, mkdirSync } from "node:fs"
import { loadavg } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { ask, hasTaskset, killAll, start, stop } from "./_webhooks/children.js"

const deliveries = Number(process.env.BENCH_DELIVERIES ?? 10_000)
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const pgDeliveries = Number(process.env.BENCH_PG_DELIVERIES ?? 3_000)
const destinations = Number(process.env.BENCH_DESTINATIONS ?? 32)
const verify = process.env.BENCH_VERIFY !== "0"
const workerOverrides = {
  ...(process.env.BENCH_BATCH ? { batchSize: Number(process.env.BENCH_BATCH) } : {}),
  ...(process.env.BENCH_CONCURRENCY ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {})
}
const TARGET = 2_000
// issue 16: per worker CPU-second on the memory store, and per second on PostgreSQL
const TARGET_CPU = 3_000
const TARGET_PG = 1_000

/** The worker script run against the snapshot's packages: copied into it, so imports resolve there. */
const baselineWorker = (() => {
  const dir = process.env.BENCH_WEBHOOKS_BASELINE
  if (!dir) return undefined
  const target = join(resolve(dir), "_webhooks")
  mkdirSync(target, { recursive: true })
  for (const file of ["worker.js", "ipc.js"]) {
    copyFileSync(fileURLToPath(new URL(`./_webhooks/${file}`, import.meta.url)), join(target, file))
  }
  return join(target, "worker.js")
})()

const fmt = (n, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** A throw-away PostgreSQL database, or undefined (with the reason printed) when no server answers. */
const postgresDatabase = async () => {
  const base = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres"
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2_000 })
  admin.on("error", () => {})
  try {
    await admin.connect()
  } catch (error) {
    const where = new URL(base)
    where.password = where.password ? "***" : ""
    console.log(`\nPostgreSQL: skipped (no server at ${where}: ${error.message}). Set DATABASE_URL or start one on 127.0.0.1:5432.`)
    return undefined
  }
  const name = `ip_bench_webhooks_${Date.now()}`
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

/**
 * One run of our worker: a fresh worker child, `count` events queued for `hooks` destinations,
 * then the host started; done when the receiver holds every delivery.
 */
const ours = async (receiver, storeUrl, count, hooks, script = "worker.js") => {
  const { child } = await start(script, [], 1)
  try {
    const setup = await ask(child, {
      type: "setup",
      destinations: hooks,
      events: count,
      receiverPort: receiver.port,
      storeUrl,
      worker: { pollIntervalMs: 10, ...workerOverrides }
    })
    await ask(receiver.child, { type: "secrets", secrets: setup.secrets })
    const r0 = await ask(receiver.child, { type: "reset" })
    const t0 = performance.now()
    const w0 = await ask(child, { type: "start" })
    let stats
    for (;;) {
      stats = await ask(receiver.child, { type: "stats" })
      if (stats.unique >= count) break
      if (performance.now() - t0 > 120_000) throw new Error(`only ${stats.unique} of ${count} deliveries arrived in 120 s`)
      await new Promise((r) => setTimeout(r, 10))
    }
    const wallMs = performance.now() - t0
    const w1 = await ask(child, { type: "cpu" })
    await ask(child, { type: "stop" })
    const workerCpu = w1.cpu - w0.cpu
    return {
      perSecond: count / (wallMs / 1000),
      perWorkerCpuSecond: count / workerCpu,
      perReceiverCpuSecond: count / (stats.cpu - r0.cpu),
      workerBusy: workerCpu / (wallMs / 1000),
      duplicates: stats.requests - stats.unique,
      rejected: stats.rejected,
      secrets: setup.secrets,
      seedMs: setup.seedMs
    }
  } finally {
    await stop(child)
  }
}

const printRun = (label, r) =>
  console.log(
    `  ${label.padEnd(40)} ${fmt(r.perSecond).padStart(6)} deliveries/s  ${fmt(r.perWorkerCpuSecond).padStart(6)} per worker CPU-s` +
      `  worker busy ${fmt(r.workerBusy * 100)}%  receiver ${fmt(r.perReceiverCpuSecond)}/CPU-s` +
      (r.duplicates || r.rejected ? `  duplicates ${r.duplicates} rejected ${r.rejected}` : "")
  )

export const main = async () => {
  const load0 = loadavg()
  console.log(
    `deliveries: ${fmt(deliveries)} per memory run x ${rounds}, ${fmt(pgDeliveries)} on PostgreSQL; ${destinations} destinations; ` +
      `receiver ${verify ? "verifying" : "not verifying"}; worker ${
        JSON.stringify({ pollIntervalMs: 10, ...workerOverrides })
      } over its defaults` +
      `${hasTaskset ? "; receiver on core 0, worker and peers on core 1" : "; no taskset: processes not pinned"}`
  )
  const receiver = await start("receiver.js", verify ? ["verify"] : [], 0)
  const peers = await start("peers.js", [], 1)
  try {
    // ours, memory store
    const memory = []
    const baseline = []
    for (let i = 0; i < rounds; i++) {
      memory.push(await ours(receiver, "memory", deliveries, destinations))
      if (baselineWorker) baseline.push(await ours(receiver, "memory", deliveries, destinations, baselineWorker))
    }
    const single = await ours(receiver, "memory", Math.min(deliveries, 2_000), 1)

    // peers, with the secrets of the last memory run (the receiver knows them)
    const secrets = memory[memory.length - 1].secrets
    const signing = await ask(peers.child, { type: "sign", secrets, count: 2_000, seconds: 2 })
    await ask(receiver.child, { type: "secrets", secrets })
    const r0 = await ask(receiver.child, { type: "reset" })
    const concurrency = workerOverrides.concurrency ?? 32
    const fetched = await ask(peers.child, { type: "fetch", secrets, count: deliveries, concurrency, receiverPort: receiver.port })
    const r1 = await ask(receiver.child, { type: "stats" })

    // ours, PostgreSQL
    let postgres
    let postgresBaseline
    const db = await postgresDatabase()
    if (db !== undefined) {
      try {
        postgres = await ours(receiver, db.url, pgDeliveries, destinations)
      } finally {
        await db.drop()
      }
      // the snapshot on a database of its own, right after ours
      const other = baselineWorker ? await postgresDatabase() : undefined
      if (other !== undefined) {
        try {
          postgresBaseline = await ours(receiver, other.url, pgDeliveries, destinations, baselineWorker)
        } finally {
          await other.drop()
        }
      }
    }

    console.log("\nour worker (built host, delivery worker defaults), signed deliveries:")
    memory.forEach((r, i) => printRun(`memory store, run ${i + 1}`, r))
    baseline.forEach((r, i) => printRun(`baseline snapshot, memory, run ${i + 1}`, r))
    printRun("memory store, 1 destination (in order)", single)
    if (postgres) printRun("PostgreSQL", postgres)
    if (postgresBaseline) printRun("baseline snapshot, PostgreSQL", postgresBaseline)
    const best = {
      perSecond: median(memory.map((r) => r.perSecond)),
      perWorkerCpuSecond: median(memory.map((r) => r.perWorkerCpuSecond)),
      perReceiverCpuSecond: median(memory.map((r) => r.perReceiverCpuSecond))
    }
    const signPerSecond = signing.signed / (signing.wallMs / 1000)
    const signPerCpu = signing.signed / signing.cpu
    const fetchPerSecond = fetched.sent / (fetched.wallMs / 1000)
    const fetchPerCpu = fetched.sent / fetched.cpu
    console.log("\npeers (core 1):")
    console.log(`  ${"standardwebhooks sign loop".padEnd(40)} ${fmt(signPerSecond).padStart(6)} signatures/s  ${fmt(signPerCpu)} per CPU-s`)
    console.log(
      `  ${`fetch loop, ${concurrency} concurrent (keep-alive)`.padEnd(40)} ${fmt(fetchPerSecond).padStart(6)} requests/s    ${
        fmt(fetchPerCpu)
      } per CPU-s` +
        `  receiver ${fmt(fetched.sent / (r1.cpu - r0.cpu))}/CPU-s${fetched.failed ? `  failed ${fetched.failed}` : ""}`
    )
    console.log("\nratios (median memory run):")
    console.log(
      `  ours / fetch loop        ${(best.perSecond / fetchPerSecond).toFixed(2)}x per second, ${
        (best.perWorkerCpuSecond / fetchPerCpu).toFixed(2)
      }x per CPU-second`
    )
    console.log(
      `  ours / signing alone     ${(best.perSecond / signPerSecond).toFixed(3)}x per second, ${
        (best.perWorkerCpuSecond / signPerCpu).toFixed(3)
      }x per CPU-second`
    )
    if (postgres) console.log(`  PostgreSQL / memory      ${(postgres.perSecond / best.perSecond).toFixed(2)}x per second`)
    if (postgres && postgresBaseline) {
      console.log(
        `  ours / baseline, PostgreSQL ${(postgres.perSecond / postgresBaseline.perSecond).toFixed(2)}x per second, ` +
          `${(postgres.perWorkerCpuSecond / postgresBaseline.perWorkerCpuSecond).toFixed(2)}x per CPU-second`
      )
    }
    if (baseline.length > 0) {
      const base = {
        perSecond: median(baseline.map((r) => r.perSecond)),
        perWorkerCpuSecond: median(baseline.map((r) => r.perWorkerCpuSecond))
      }
      console.log(
        `  ours / baseline snapshot ${(best.perSecond / base.perSecond).toFixed(2)}x per second, ${
          (best.perWorkerCpuSecond / base.perWorkerCpuSecond).toFixed(2)
        }x per CPU-second`
      )
    }
    // what the two processes would do with a core each: the slower of the two per CPU-second
    const capacity = Math.min(best.perWorkerCpuSecond, best.perReceiverCpuSecond)
    console.log(
      `\ntarget: >= ${fmt(TARGET)} signed deliveries/s on 2 cores, memory store: measured ${fmt(best.perSecond)}/s -> ` +
        `${best.perSecond >= TARGET ? "MET" : "MISSED"}; with a core each for worker and receiver (per CPU-second) ${fmt(capacity)}/s -> ` +
        `${capacity >= TARGET ? "MET" : "MISSED"}`
    )
    console.log(
      `target (issue 16): >= ${fmt(TARGET_CPU)} per worker CPU-second, memory store: measured ${fmt(best.perWorkerCpuSecond)} -> ${
        best.perWorkerCpuSecond >= TARGET_CPU ? "MET" : "MISSED"
      }; >= ${fmt(TARGET_PG)} deliveries/s on PostgreSQL: ${
        postgres ? `measured ${fmt(postgres.perSecond)}/s -> ${postgres.perSecond >= TARGET_PG ? "MET" : "MISSED"}` : "not measured"
      }`
    )
    const load1 = loadavg()
    console.log(
      `load average (1 min) before ${load0[0].toFixed(1)}, after ${load1[0].toFixed(1)}, on ${hasTaskset ? "pinned" : "unpinned"} processes`
    )
  } finally {
    killAll()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
