/**
 * Several hosts on one PostgreSQL (issue 16; docs/operations.md "Several hosts"): three hosts as
 * separate processes (the BUILT host, support/clusterHost.js), same secret key, one database, every
 * worker running. Test webhook events and branch scans go in through all three hosts' HTTP APIs; one
 * host is killed with SIGKILL halfway. Then: every event reached the receiver, verified, under its
 * own `webhook-id`; no delivery was being sent by two hosts at once (the receiver holds each request
 * briefly and records overlaps); every scan succeeded and was recorded once; and each scheduled run
 * (routine tick, external phase poll, snooze expiry and snapshot passes) was done once per due time
 * across the hosts, as their logs show. A host writes its log lines in batches (runtime/JsonLog.ts),
 * so the killed host's last lines may be missing: the logs prove "never twice", the database
 * proves "done".
 */
import { AesGcmSecretBox } from "@image-policy/adapters"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import * as Stubs from "../../adapters/test/support/providerStubs.js"
import { ensureBuilt } from "./support/build.js"
import { until } from "./support/until.js"
import { slowReceiver } from "./support/workerProcess.js"

const hostScript = fileURLToPath(new URL("./support/clusterHost.js", import.meta.url))
const secretKey = AesGcmSecretBox.generateKey()
const ownerKey = "cluster-owner-secret-0123456789abcdefghijklmnop"
const token = "ghp_CLUSTERSTUBTOKEN0123456789abcdefgh"
const tokenEnv = "CLUSTER_TEST_GITHUB_TOKEN"
const orgId = "org_cluster"
const api = `/api/v1/org/${orgId}`

const events = 2_000
const appRepositories = 6
const phases = 3

// short leases and fast timers, passed explicitly: the test must not depend on the defaults; the
// worker id names the host in claims, its instance id (`host-c/<start>`) in delivery and scan leases
const workers = (workerId: string) => ({
  deliveryWorker: { workerId, leaseMs: 6_000, timeoutMs: 2_000, batchSize: 16, concurrency: 8, pollIntervalMs: 20 },
  scanWorker: { workerId, leaseMs: 10_000, pollIntervalMs: 50 },
  routineWorker: { workerId, intervalMs: 1_000, checkMs: 100, leaseMs: 3_000 },
  syncWorker: { workerId, tickMs: 200, leaseMs: 3_000 },
  snoozeExpiryWorker: { workerId, tickMs: 1_000, checkMs: 100, leaseMs: 3_000 },
  snapshotWorker: { workerId, tickMs: 2_000, checkMs: 100, leaseMs: 3_000 }
})

// host processes ---------------------------------------------------------------------------------

interface Host {
  readonly name: string
  readonly child: ChildProcess
  readonly url: string
  readonly seeded: any
  /** Every line the process wrote so far (its JSON logs). */
  readonly lines: () => ReadonlyArray<string>
}

const spawnHost = (name: string, databaseUrl: string, seed: unknown) =>
  new Promise<Host>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [hostScript, JSON.stringify({ databaseUrl, secretKey, seed, instanceId: `host-${name}`, workers: workers(`host-${name}`) })],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, [tokenEnv]: token }
      }
    )
    let output = ""
    let ready = false
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (ready) return
      const line = output.split("\n").find((l) => l.startsWith(`{"ready":true`))
      if (line === undefined) return
      ready = true
      const { seeded, url } = JSON.parse(line)
      resolve({ name, child, url, seeded, lines: () => output.split("\n") })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code, signal) => {
      if (!ready) reject(new Error(`host ${name} exited before it was ready (${code ?? signal}): ${output.slice(-2_000)}`))
    })
  })

const kill = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGKILL")
  await exited
}

/** The host's JSON log lines with `message`. */
const logs = (host: Host, message: string) =>
  host.lines().flatMap((line) => {
    if (!line.startsWith("{")) return []
    try {
      const parsed = JSON.parse(line)
      return parsed.message === message ? [parsed] : []
    } catch {
      return []
    }
  })

const call = async (host: Host, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { "x-api-key": ownerKey, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} on ${host.name}: ${response.status} ${text}`)
  return text === "" ? undefined : JSON.parse(text)
}

// -------------------------------------------------------------------------------------------------

const mappingsFile = JSON.stringify({ mappings: [{ fromImage: "node:20", toImage: "node:20.11.1" }] })

const seedOf = (baseUrl: string) => ({
  organizations: [{
    id: orgId,
    name: "Cluster",
    edition: "enterprise",
    teams: [{ name: "Platform", routines: [{ name: "Daily", active: true, intervalDays: 1 }] }],
    vcsConnections: [{ provider: "github", externalAccountName: "acme", status: "active", api: { baseUrl, tokenEnv } }],
    policyGroups: [{
      name: "Polled",
      phases: Array.from({ length: phases }, (_, i) => ({
        name: `P${i}`,
        source: "external",
        file: { connection: "acme", repository: "acme/policy", branch: "main", path: `p${i}.json`, pollIntervalSeconds: 10 }
      }))
    }],
    apiKeys: [{ name: "owner", secret: ownerKey, role: "Owner", expiresInDays: null }]
  }]
})

await pgDescribe("three hosts", (databaseUrl) => {
  let scope: Scope.Closeable
  let stub: Stubs.Stub
  let receiver: Awaited<ReturnType<typeof slowReceiver>>
  const hosts: Array<Host> = []

  beforeAll(async () => {
    await ensureBuilt()
    scope = await Effect.runPromise(Scope.make())
    const repositories = [
      Stubs.repository(1, "acme/policy", {
        files: { main: Object.fromEntries(Array.from({ length: phases }, (_, i) => [`p${i}.json`, mappingsFile])) }
      }),
      ...Array.from({ length: appRepositories }, (_, i) =>
        Stubs.repository(100 + i, `acme/app-${i}`, {
          branches: ["main", "develop"],
          files: {
            main: { "Dockerfile": "FROM node:20\n", "src/index.js": "console.log('hi')\n" },
            develop: { "Dockerfile": "FROM node:18\n" }
          }
        }))
    ]
    stub = await Effect.runPromise(Scope.provide(Stubs.github({ token, repositories }), scope))
    receiver = await slowReceiver(10)
    // the first host loads the seed (and migrates the database) before the others start
    hosts.push(await spawnHost("a", databaseUrl, seedOf(stub.baseUrl)))
    hosts.push(...await Promise.all(["b", "c"].map((name) => spawnHost(name, databaseUrl, null))))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(hosts.map((h) => kill(h.child)))
    await receiver?.close()
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it(
    "three hosts, one killed halfway: every event delivered once at a time, scans recorded once, scheduled runs once per due time",
    async () => {
      const [a, b, c] = hosts as [Host, Host, Host]
      const org = a.seeded[0]
      const destination = await call(b, "POST", `${api}/webhooks`, {
        name: "cluster",
        type: "generic",
        endpointUrl: receiver.url("/hook"),
        scope: { kind: "organization" },
        events: ["service.snooze_request.created"]
      })
      receiver.setSecret("/hook", destination.signingSecret)

      // every repository onboarded through a different host: two branch scans queued each
      const repositoryIds: Array<string> = []
      for (let i = 0; i < appRepositories; i++) {
        const onboarded = await call(hosts[i % 3]!, "POST", `${api}/repositories`, {
          vcsConnectionId: org.vcsConnections["acme"],
          externalRepoId: String(100 + i),
          assignedTeamId: org.teams["Platform"],
          assignedRoutineId: org.routines["Platform/Daily"],
          branchNames: ["main", "develop"]
        })
        repositoryIds.push(onboarded.repository.id)
      }

      // when host c was killed: the routine tick must go on after it
      let killedAt = Infinity
      const db = new Pg.Client({ connectionString: databaseUrl })
      await db.connect()
      try {
        const count = async (query: string) => Number((await db.query(query)).rows[0].n)
        // test events through every host, 16 at a time; host c is killed halfway
        const eventIds: Array<string> = []
        const scanIds = new Set<string>()
        let sent = 0
        // the hosts requests go to, and the requests each has under way
        let live: ReadonlyArray<Host> = [a, b, c]
        const pending = new Map<Host, number>(hosts.map((h) => [h, 0]))
        const through = async <A>(host: Host, f: (host: Host) => Promise<A>) => {
          pending.set(host, pending.get(host)! + 1)
          try {
            return await f(host)
          } finally {
            pending.set(host, pending.get(host)! - 1)
          }
        }
        // 16 clients at once, round robin over the live hosts
        const lanes = Array.from({ length: 16 }, async (_, lane) => {
          while (sent < events) {
            const n = sent++
            const targets = live
            const queued = await through(
              targets[(n + lane) % targets.length]!,
              (host) => call(host, "POST", `${api}/webhooks/${destination.id}/test`)
            )
            eventIds.push(queued.eventId)
            // now and then, scans of a repository's branches (kept when one is still pending)
            if (n % 100 === 0) {
              const answer = await through(
                targets[n % targets.length]!,
                (host) => call(host, "POST", `${api}/repositories/${repositoryIds[n % appRepositories]}/scans`, {})
              )
              for (const scan of answer.scans ?? []) scanIds.add(scan.id)
            }
          }
        })
        // halfway, host c gets no more requests and is killed mid-work: once its own requests are
        // answered, while it holds deliveries it claimed and has not finished
        let heldByC = new Set<string>()
        const killer = (async () => {
          await until("half the events to be sent", () => sent >= events / 2, 60_000, 5)
          live = [a, b]
          await until(
            "host c to hold deliveries, with no request of the test under way",
            async () =>
              pending.get(c) === 0 &&
              (await count(`SELECT count(*) AS n FROM deliveries WHERE status = 'pending' AND lease_owner LIKE 'host-c/%'`)) > 0,
            30_000,
            5
          )
          await kill(c.child)
          killedAt = Date.now()
          // what host c held when it died: its scans are run again, by another host
          heldByC = new Set(
            (await db.query(`SELECT id FROM scans WHERE status = 'running' AND lease_worker LIKE 'host-c/%'`)).rows.map((
              r: { id: string }
            ) => r.id)
          )
        })()
        await Promise.all([...lanes, killer])
        expect(c.child.signalCode).toBe("SIGKILL")
        expect(eventIds).toHaveLength(events)

        // every event reached the receiver, each under its own event id as webhook-id
        await until(
          "every delivery to succeed",
          async () => (await count(`SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'`)) === events,
          60_000,
          50
        )
        expect(receiver.rejected).toEqual([])
        expect(new Set(receiver.received)).toEqual(new Set(eventIds))
        // redelivered after the kill at most (at least once), but never two at the same time
        expect(receiver.concurrent).toEqual([])

        // every scan (onboarding, requested, routine) succeeded, and was recorded by one host once
        await until(
          "every scan to succeed",
          async () => (await count(`SELECT count(*) AS n FROM scans WHERE status <> 'succeeded'`)) === 0,
          60_000,
          50
        )
        const scans = (await db.query(`SELECT id, attempts FROM scans`)).rows as Array<{ id: string; attempts: number }>
        expect(scans.length).toBeGreaterThanOrEqual(appRepositories * 2)
        for (const id of scanIds) expect(scans.map((s) => s.id)).toContain(id)
        // run once each: only what the killed host held was run a second time
        expect(scans.filter((s) => s.attempts !== 1 && !heldByC.has(s.id))).toEqual([])
        const recorded = hosts.flatMap((h) => logs(h, "scan succeeded").map((l) => l.annotations.scanId as string))
        expect(recorded.filter((id, i) => recorded.indexOf(id) !== i)).toEqual([])
      } finally {
        await db.end()
      }

      // scheduled runs: once per due time across the hosts (a run the killed host finished but did
      // not log yet is simply missing, never doubled)
      const done = hosts.flatMap((h) =>
        logs(h, "scheduled run done").map((l) => ({
          host: h.name,
          key: l.annotations.scheduledKey as string,
          dueAt: l.annotations.dueAt as number
        }))
      )
      const runs = new Map<string, Array<string>>()
      for (const d of done) runs.set(`${d.key}@${d.dueAt}`, [...(runs.get(`${d.key}@${d.dueAt}`) ?? []), d.host])
      const doubled = [...runs].filter(([, by]) => by.length > 1)
      expect(doubled).toEqual([])
      // the routine tick ran every second, by more than one host, and went on after the kill
      const routine = done.filter((d) => d.key === "routine")
      expect(new Set(routine.map((d) => d.host)).size).toBeGreaterThan(1)
      expect(routine.length).toBeGreaterThan(3)
      expect(routine.filter((d) => d.dueAt > killedAt).length).toBeGreaterThan(0)
      // each phase was polled, and its file read no more often than its polls were done (plus one
      // poll the killed host may have read and not finished)
      for (let i = 0; i < phases; i++) {
        const phaseId = org.policyGroups["Polled"].phases[`P${i}`]
        const polls = done.filter((d) => d.key === `sync:${phaseId}`).length
        expect(polls).toBeGreaterThan(0)
        const reads = stub.requests.filter((r) => r.path.includes(`p${i}.json`)).length
        expect(reads).toBeGreaterThan(0)
        expect(reads).toBeLessThanOrEqual(polls + 1)
      }
      for (const key of ["snooze-expiry", "compliance-snapshot"]) expect(done.filter((d) => d.key === key).length).toBeGreaterThan(0)
    },
    150_000
  )
})
