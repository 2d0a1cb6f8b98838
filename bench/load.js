// Load benchmark (issue 16, "Load"): the built host, started as an operator starts it
// (`image-policy serve` on PostgreSQL, a seed file, the default per-key rate limit, the access log
// on, `--metrics`), driven open loop at a fixed rate (default 1,000 requests/s for 60 s) with a mix
// of reads and writes across organizations and API keys (bench/_load/mix.js) from a separate
// process (bench/_load/client.js). Webhook destinations of every organization point at a receiver
// in this process, so the outbox drains as in production; its depth is sampled from `/metrics`.
//
// Exits non-zero when a request failed (socket error, timeout, a status the mix does not expect:
// a 429 counts), when the achieved rate is below 99% of the target, or when the outbox is not empty
// within `--drain` seconds after the load.
//
// Options (`npm run bench -- load --rate 1000 --duration 60`), or BENCH_LOAD_<NAME> variables:
//   --rate N        requests per second (1000)       --duration S   seconds of load (60)
//   --orgs N        organizations (10)               --keys N       API keys per role and organization (3)
//   --repos N       repositories per organization (5)
//   --rate-limit R  the host's `--rate-limit` (its default, 50:100 per key)
//   --sample S      seconds between /metrics samples (5)   --drain S   seconds allowed to empty the outbox (60)
//   --warmup S      seconds at a fifth of the rate before the measured load (5; 0: none)
//   --no-verify     the receiver does not check signatures  --profile DIR   the host under `node --cpu-prof`
// PostgreSQL: DATABASE_URL or 127.0.0.1:5432; a throw-away database is created and dropped.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { images, roleShare } from "./_load/mix.js"
import { hostCpuSeconds, machineBusy, postgresCpu, seedFile, slope } from "./_load/setup.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const fmt = (n, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const ms = (n) => `${fmt(n, n < 10 ? 1 : 0)} ms`

const parseOptions = (args) => {
  const env = (name, fallback) => process.env[`BENCH_LOAD_${name.toUpperCase().replace("-", "_")}`] ?? fallback
  const o = {
    rate: Number(env("rate", 1000)),
    duration: Number(env("duration", 60)),
    orgs: Number(env("orgs", 10)),
    keys: Number(env("keys", 3)),
    repos: Number(env("repos", 5)),
    "rate-limit": env("rate-limit", undefined),
    sample: Number(env("sample", 5)),
    warmup: Number(env("warmup", 5)),
    drain: Number(env("drain", 60)),
    verify: env("verify", "1") !== "0",
    profile: env("profile", undefined)
  }
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, "")
    if (name === "no-verify") o.verify = false
    else if (name in o) o[name] = typeof o[name] === "number" ? Number(args[++i]) : args[++i]
    else throw new Error(`load: unknown option ${args[i]}`)
  }
  return o
}

/** A throw-away PostgreSQL database, or undefined (with the reason printed) when no server answers. */
export const postgresDatabase = async () => {
  const base = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres"
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2_000 })
  admin.on("error", () => {})
  try {
    await admin.connect()
  } catch (error) {
    const where = new URL(base)
    where.password = where.password ? "***" : ""
    console.log(`PostgreSQL: skipped (no server at ${where}: ${error.message}). Set DATABASE_URL or start one on 127.0.0.1:5432.`)
    return undefined
  }
  const name = `ip_bench_load_${Date.now()}`
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    name,
    base,
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

/** The webhook receiver: verifies each delivery against its destination's secret, answers 204. */
export const startReceiver = async (verify) => {
  const verifiers = new Map()
  const stats = { requests: 0, rejected: 0, ids: new Set() }
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      stats.requests++
      const verifier = verifiers.get(req.url)
      if (verify && verifier !== undefined) {
        try {
          verifier.verify(Buffer.concat(chunks).toString("utf8"), req.headers)
        } catch {
          stats.rejected++
          res.writeHead(400).end()
          return
        }
      }
      const id = req.headers["webhook-id"]
      if (typeof id === "string") stats.ids.add(`${req.url} ${id}`)
      res.writeHead(204).end()
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: server.address().port,
    stats,
    add: (path, secret) => verifiers.set(path, new Webhook(secret)),
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

/** `image-policy serve` as an operator runs it; resolves with the process and its URL once it listens. */
export const startHost = (o, storeUrl, seedPath) =>
  new Promise((resolve, reject) => {
    const args = [
      ...(o.profile ? ["--cpu-prof", `--cpu-prof-dir=${o.profile}`] : []),
      join(root, "packages/host/bin/image-policy.js"),
      "serve",
      "--store",
      storeUrl,
      "--seed",
      seedPath,
      "--port",
      "0",
      "--metrics",
      ...(o["rate-limit"] ? ["--rate-limit", o["rate-limit"]] : [])
    ]
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        IMAGE_POLICY_SECRET_KEY: randomBytes(32).toString("base64"),
        IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS: "1",
        IMAGE_POLICY_RATE_LIMIT: "",
        IMAGE_POLICY_METRICS: ""
      }
    })
    // the access log is read and dropped, as a log shipper would; warnings and errors are kept
    const log = { lines: 0, warnings: [], stderr: "" }
    let pending = ""
    let url
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk) => {
      pending += chunk
      let nl
      while ((nl = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, nl)
        pending = pending.slice(nl + 1)
        log.lines++
        if (url === undefined && line.includes("\"listening\"")) {
          url = JSON.parse(line).annotations.url
          resolve({ child, url, log })
        } else if (/"logLevel":"(WARN|Warn|Warning|ERROR|Error|FATAL|Fatal)"/i.test(line) && log.warnings.length < 50) {
          log.warnings.push(line.slice(0, 400))
        }
      }
    })
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk) => (log.stderr = (log.stderr + chunk).slice(-4_000)))
    child.once("exit", (code, signal) => {
      log.exit = { code, signal }
      if (url === undefined) reject(new Error(`the host exited before listening (code ${code}, signal ${signal}): ${log.stderr}`))
    })
  })

export const api = (baseUrl) => async (key, method, path, body) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`setup: ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`)
  return text === "" ? undefined : JSON.parse(text)
}

/** Tracks each organization's repositories, two webhook destinations on the receiver, and a first publish. */
export const prepare = async (call, seed, receiver) => {
  const orgs = []
  for (const org of seed.organizations) {
    const admin = org.apiKeys.find((k) => k.name === "admin").secret
    const base = `/api/v1/org/${org.id}`
    const [connection] = (await call(admin, "GET", `${base}/vcs-connections`)).items
    const teams = (await call(admin, "GET", `${base}/teams`)).items
    const routines = (await call(admin, "GET", `${base}/routines`)).items
    const repositories = []
    for (const [i, repo] of org.vcsConnections[0].fixture.repositories.entries()) {
      const team = teams[i % teams.length]
      const created = await call(admin, "POST", `${base}/repositories`, {
        vcsConnectionId: connection.id,
        externalRepoId: repo.externalRepoId,
        assignedTeamId: team.id,
        assignedRoutineId: routines.find((r) => r.teamId === team.id).id,
        branchNames: ["main"]
      })
      repositories.push(created.repository?.id ?? created.id)
    }
    const groups = []
    for (const group of (await call(admin, "GET", `${base}/policy-groups`)).items) {
      const details = await call(admin, "GET", `${base}/policy-groups/${group.id}/details`)
      groups.push({ id: group.id, phases: details.phases.filter((p) => p.sourceType === "internal").map((p) => p.id) })
    }
    const destinations = [
      {
        path: `/hook/${org.id}/all`,
        events: [
          "service.policy_group.published",
          "service.policy_mapping.created",
          "service.policy_mapping.updated",
          "service.policy_mapping.removed",
          "service.snooze_request.created",
          "service.snooze_request.reviewed"
        ]
      },
      { path: `/hook/${org.id}/snoozes`, events: ["service.snooze_request.created", "service.snooze_request.reviewed"] }
    ]
    for (const d of destinations) {
      const created = await call(admin, "POST", `${base}/webhooks`, {
        name: d.path,
        type: "generic",
        endpointUrl: `http://127.0.0.1:${receiver.port}${d.path}`,
        scope: { kind: "organization" },
        events: d.events
      })
      receiver.add(d.path, created.signingSecret)
    }
    // a published mapping for half the images, so resolve finds winners from the start
    for (const from of images.slice(0, images.length / 2)) {
      await call(admin, "POST", `${base}/policy-groups/${groups[0].id}/phases/${groups[0].phases[0]}/mappings`, {
        fromImage: from,
        toImage: `registry.example.com/mirror/${from.replace(":", "-")}:pin-0`
      })
    }
    await call(admin, "POST", `${base}/policy-groups/${groups[0].id}/publish`)
    const keys = (role) => org.apiKeys.filter((k) => k.name.startsWith(`${role}-`)).map((k) => k.secret)
    orgs.push({ id: org.id, keys: { ro: keys("ro"), ci: keys("ci"), sec: keys("sec") }, groups, repositories, pendingSnoozes: [] })
  }
  return orgs
}

const scrape = async (baseUrl) => {
  const text = await (await fetch(`${baseUrl}/metrics`)).text()
  const value = (name) => {
    const m = text.match(new RegExp(`^image_policy_${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, "m"))
    return m ? Number(m[1]) : Number.NaN
  }
  const scans = [...text.matchAll(/^image_policy_scan_queue_depth\{[^}]*\} ([0-9.e+-]+)$/gm)].reduce((n, m) => n + Number(m[1]), 0)
  return { pending: value("outbox_pending_deliveries"), oldestAge: value("outbox_oldest_pending_age_seconds"), scans }
}

export const main = async (args = process.argv.slice(2)) => {
  const o = parseOptions(args)
  const db = await postgresDatabase()
  if (db === undefined) return
  const dir = mkdtempSync(join(tmpdir(), "ip-bench-load-"))
  const seed = seedFile(o)
  const seedPath = join(dir, "seed.json")
  writeFileSync(seedPath, JSON.stringify(seed))
  const receiver = await startReceiver(o.verify)
  let host
  let client
  let failed = false
  try {
    const load0 = loadavg()
    host = await startHost(o, db.url, seedPath)
    // never leave a host or client behind when this process ends early (an error, ^C)
    const killChildren = () => {
      host?.child.kill("SIGKILL")
      client?.kill("SIGKILL")
    }
    process.once("exit", killChildren)
    process.once("SIGINT", () => process.exit(130))
    process.once("SIGTERM", () => process.exit(143))
    console.log(
      `host: image-policy serve on PostgreSQL (throw-away database), ${o.orgs} organizations x ${o.repos} repositories, ` +
        `${o.keys} keys per role each (Read Only, Policy Automation, Security Administrator), rate limit ${
          o["rate-limit"] ?? "the default (50/s, burst 100, per key)"
        }, access log on (read and dropped), --metrics`
    )
    const perKey = Math.max(...["ro", "ci", "sec"].map((r) => (o.rate * roleShare(r)) / o.orgs / o.keys))
    console.log(
      `load: ${fmt(o.rate)} requests/s open loop for ${o.duration} s from a separate process; the busiest key gets about ${
        fmt(perKey)
      } requests/s`
    )
    const call = api(host.url)
    const t0 = performance.now()
    const orgs = await prepare(call, seed, receiver)
    console.log(`setup: ${fmt(performance.now() - t0)} ms (repositories tracked, 2 webhook destinations per organization, a first publish)`)

    client = spawn(process.execPath, [fileURLToPath(new URL("./_load/client.js", import.meta.url))], {
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    await new Promise((resolve, reject) => {
      client.once("message", (m) => (m?.type === "ready" ? resolve() : reject(new Error("client: unexpected message"))))
      client.once("exit", (code) => reject(new Error(`client exited (code ${code})`)))
    })

    // the onboarding scans first, so the measured load meets a steady host (and findings to read)
    const scansFrom = performance.now()
    while ((await scrape(host.url)).scans > 0 && performance.now() - scansFrom < 120_000) await new Promise((r) => setTimeout(r, 250))
    const runClient = (plan) =>
      new Promise((resolve, reject) => {
        const onMessage = (m) => {
          if (m?.type !== "run") return
          client.off("message", onMessage)
          if (m.error) reject(new Error(m.error))
          else resolve(m)
        }
        client.on("message", onMessage)
        client.send({ type: "run", id: 1, plan: { baseUrl: host.url, orgs, tickSeconds: o.sample, timeoutMs: 10_000, ...plan } })
      })
    // a warm-up at a fifth of the rate (JIT, connection pools), not measured
    if (o.warmup > 0) {
      const w = await runClient({ rate: o.rate / 5, seconds: o.warmup, seed: 1, quiet: true })
      console.log(
        `warm-up: ${o.warmup} s at ${fmt(o.rate / 5)} req/s (scans done after ${
          fmt((performance.now() - scansFrom) / 1000, 1)
        } s), ${w.errors} errors, p99 ${ms(w.latency.p99)}`
      )
    }

    const samples = []
    const pgAdmin = new pg.Client({ connectionString: db.base })
    await pgAdmin.connect()
    const pgCpu = await postgresCpu(pgAdmin, db.name)
    const busy0 = machineBusy()
    const hostCpu0 = hostCpuSeconds(host.child.pid)
    const started = performance.now()
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        try {
          await pgCpu.sample()
          samples.push({ atSeconds: (performance.now() - started) / 1000, ...(await scrape(host.url)) })
        } catch (error) {
          samples.push({ atSeconds: (performance.now() - started) / 1000, error: error.message })
        }
        await new Promise((r) => setTimeout(r, o.sample * 1000))
      }
    })()
    const ticks = []
    client.on("message", (m) => {
      if (m?.type !== "tick" || m.tick.quiet) return
      ticks.push(m.tick)
      const last = samples[samples.length - 1]
      console.log(
        `  ${fmt(m.tick.atSeconds).padStart(3)} s  ${fmt(m.tick.rate).padStart(5)} req/s  p50 ${ms(m.tick.p50).padStart(8)}  p99 ${
          ms(m.tick.p99).padStart(8)
        }  errors ${m.tick.errors}  in flight ${m.tick.inFlight}  outbox ${last?.pending ?? "?"}`
      )
    })
    const result = await runClient({ rate: o.rate, seconds: o.duration, seed: 16 })
    const loadSeconds = (performance.now() - started) / 1000
    const hostCpu = hostCpuSeconds(host.child.pid) - hostCpu0
    const busy = machineBusy(busy0)
    await pgCpu.sample()
    const postgresSeconds = pgCpu.seconds()
    await pgAdmin.end()
    // the outbox after the load: keep sampling until it is empty (or the drain time is up)
    const endedAt = performance.now()
    let drainedAfter
    for (;;) {
      const s = await scrape(host.url)
      if (s.pending === 0) {
        drainedAfter = (performance.now() - endedAt) / 1000
        break
      }
      if (performance.now() - endedAt > o.drain * 1000) break
      await new Promise((r) => setTimeout(r, 250))
    }
    sampling = false
    await sampler
    const during = samples.filter((s) => s.atSeconds <= loadSeconds && Number.isFinite(s.pending))
    const half = during.filter((s) => s.atSeconds >= loadSeconds / 2)

    console.log("\nresult:")
    console.log(
      `  requests ${fmt(result.total)}, answered as expected ${fmt(result.ok)}; achieved ${fmt(result.achievedRate, 1)} req/s (target ${
        fmt(o.rate)
      }); ` +
        `errors ${result.errors}; the client fell behind its schedule by at most ${
          ms(result.maxLagMs)
        }; at most ${result.maxInFlight} in flight`
    )
    console.log(
      `  latency from each request's due time: p50 ${ms(result.latency.p50)}, p95 ${ms(result.latency.p95)}, p99 ${
        ms(result.latency.p99)
      }, max ${ms(result.latency.max)}`
    )
    console.log(
      `  CPU: host ${fmt((hostCpu / loadSeconds) * 100)}% of a core, client ${fmt((result.clientCpuSeconds / loadSeconds) * 100)}%, ` +
        `machine ${fmt(busy * 100)}% busy (2 cores: host, PostgreSQL, client, receiver); load average ${load0[0].toFixed(1)} before, ${
          loadavg()[0].toFixed(1)
        } after`
    )
    // CPU per request answered as expected depends less on what else the machine runs than a rate
    // does: what 2 cores would carry if host, PostgreSQL and client had them to themselves. Only
    // meaningful without errors: work spent on requests the client gave up on counts against the rest
    const answered = Math.max(1, result.ok)
    const perRequest = {
      host: hostCpu / answered,
      postgres: postgresSeconds / answered,
      client: result.clientCpuSeconds / answered
    }
    const cpuPerRequest = perRequest.host + perRequest.postgres + perRequest.client
    console.log(
      `  CPU per request: host ${fmt(perRequest.host * 1e6)} µs, PostgreSQL backends ${fmt(perRequest.postgres * 1e6)} µs, client ${
        fmt(perRequest.client * 1e6)
      } µs; 2 cores to themselves would carry about ${fmt(2 / cpuPerRequest)} req/s (host alone on one core: ${fmt(1 / perRequest.host)})`
    )
    console.log("\n  | request | share | sent | statuses | errors | p50 | p99 | max |")
    console.log("  |---|---:|---:|---|---:|---:|---:|---:|")
    for (const op of result.ops) {
      const statuses = Object.entries(op.statuses).map(([s, n]) => `${s}: ${fmt(n)}`).join(", ")
      console.log(
        `  | ${op.name} | ${fmt((op.sent / result.total) * 100, 1)}% | ${fmt(op.sent)} | ${statuses} | ${op.errors} | ${
          ms(op.latency.p50)
        } | ${ms(op.latency.p99)} | ${ms(op.latency.max)} |`
      )
    }
    for (const [kind, n] of Object.entries(result.failures)) console.log(`  failed: ${fmt(n)} x ${kind}`)
    for (const u of result.unexpected.filter((u) => u.status !== undefined).slice(0, 5)) {
      console.log(`  unexpected answer: ${JSON.stringify(u)}`)
    }

    const outboxSlope = slope(half.map((s) => [s.atSeconds, s.pending]))
    console.log(
      `\noutbox (image_policy_outbox_pending_deliveries, every ${o.sample} s): ${
        during.map((s) => `${fmt(s.atSeconds)}s ${s.pending}`).join(", ")
      }`
    )
    console.log(
      `  max ${Math.max(0, ...during.map((s) => s.pending))}, at the end of the load ${during[during.length - 1]?.pending ?? "?"}; ` +
        `slope over the second half ${fmt(outboxSlope, 2)} deliveries/s; oldest pending at most ${
          fmt(Math.max(0, ...during.map((s) => s.oldestAge)), 1)
        } s; ${drainedAfter === undefined ? `NOT empty ${o.drain} s after the load` : `empty ${fmt(drainedAfter, 1)} s after the load`}`
    )
    console.log(
      `  receiver: ${fmt(receiver.stats.ids.size)} deliveries (${
        fmt(receiver.stats.requests)
      } requests, ${receiver.stats.rejected} rejected${o.verify ? ", every signature verified" : ", not verified"})`
    )
    if (host.log.warnings.length > 0) {
      console.log(`  host warnings/errors logged: ${host.log.warnings.length}${host.log.warnings.length >= 50 ? "+" : ""}`)
      for (const w of host.log.warnings.slice(0, 5)) console.log(`    ${w}`)
    }

    const verdicts = [
      [
        "errors",
        result.errors === 0 && receiver.stats.rejected === 0,
        `${result.errors} failed requests, ${receiver.stats.rejected} rejected deliveries`
      ],
      ["rate", result.achievedRate >= o.rate * 0.99, `${fmt(result.achievedRate, 1)} of ${fmt(o.rate)} req/s`],
      ["outbox", drainedAfter !== undefined, drainedAfter === undefined ? "still pending after the drain time" : "drained"]
    ]
    for (const [name, ok, detail] of verdicts) console.log(`  ${name}: ${ok ? "OK" : "FAILED"} (${detail})`)
    failed = verdicts.some(([, ok]) => !ok)
  } finally {
    client?.kill("SIGKILL")
    if (host?.child.exitCode === null) {
      const exited = new Promise((resolve) => host.child.once("exit", resolve))
      host.child.kill("SIGTERM")
      const timer = setTimeout(() => host.child.kill("SIGKILL"), 15_000)
      await exited
      clearTimeout(timer)
    }
    await receiver.close()
    await db.drop()
    rmSync(dir, { recursive: true, force: true })
  }
  if (failed) process.exitCode = 1
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
