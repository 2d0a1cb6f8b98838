/**
 * Webhook delivery workers as processes of their own (support/deliveryWorker.js runs the BUILT
 * host over PostgreSQL), and a slow verifying receiver, for the crash and lease tests
 * (webhookCrash.test.ts, leaseRecovery.test.ts). Call `ensureBuilt()` first.
 */
import { AesGcmSecretBox, PgClient, StoreConfig } from "@image-policy/adapters"
import { type Id, OrganizationStore, type Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import * as Pg from "pg"
import { Webhook } from "standardwebhooks"
import * as App from "../../src/App.js"
import { ensureBuilt } from "./build.js"

const workerScript = fileURLToPath(new URL("./deliveryWorker.js", import.meta.url))
/** The secret key of the test and of every worker it starts (sealed endpoints open in both). */
export const secretKey = AesGcmSecretBox.generateKey()

/** A client of the suite's database, to read the tables as the worker processes leave them. */
export class Db extends Context.Service<Db, Pg.Client>()("test/workerProcess/Db") {}

/**
 * What a suite of worker processes runs beside them, in this process: the BUILT packages (a stale
 * build is rebuilt first: the processes run it), the host's services over the same PostgreSQL
 * database with the processes' secret key (to queue work through the core's workflows), one
 * enterprise organization, and a `Db` client.
 */
export const processSuite = (url: string, orgId: Id.OrgId, name: string) => {
  const caller: Workflows.Caller.Caller = { orgId, actor: { kind: "system", name }, correlationId: name.replace(/ /g, "-") }
  const services = App.services(StoreConfig.migrated(PgClient.layerFromUrl(url, { maxConnections: 2 })), {
    secretKey,
    allowUnsafeWebhookTargets: true
  })
  const organization = Layer.effectDiscard(
    OrganizationStore.use(({ organizations }) =>
      organizations.insert({ id: orgId, name, edition: "enterprise", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 })
    )
  )
  const db = Layer.effect(
    Db,
    Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Pg.Client({ connectionString: url })
        await client.connect()
        return client
      }),
      (client) => Effect.promise(() => client.end())
    )
  )
  return {
    caller,
    layer: Layer.mergeAll(db, Layer.provideMerge(organization, services)).pipe(
      Layer.provide(Layer.effectDiscard(Effect.promise(ensureBuilt)))
    )
  }
}

// worker processes -------------------------------------------------------------------------------

export interface WorkerSettings {
  /** The host's instance id (`--instance-id`). */
  readonly workerId: string
  readonly leaseMs?: number
  readonly renewEveryMs?: number
  readonly timeoutMs?: number
  readonly batchSize?: number
  readonly concurrency?: number
  readonly schedule?: ReadonlyArray<number>
  /** How long a SIGTERM waits for deliveries in flight. */
  readonly drainMs?: number
  /** The scan worker's options; none runs without. */
  readonly scanWorker?: Record<string, unknown>
  /** The fixture provider never answers a file listing: scans stay in flight. */
  readonly hangScans?: boolean
}

/** Starts support/deliveryWorker.js against `databaseUrl` and waits until its worker runs. */
export const spawnWorker = (databaseUrl: string, settings: WorkerSettings) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [workerScript, JSON.stringify({ databaseUrl, secretKey, pollIntervalMs: 20, ...settings })],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.includes(`"ready":true`)) resolve(child)
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code, signal) => {
      reject(new Error(`worker ${settings.workerId} exited before it was ready (${code ?? signal}): ${output.slice(-2_000)}`))
    })
  })

export const kill = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGKILL")
  await exited
}

/** Sends SIGTERM and answers the exit code once the process has exited (null: killed by a signal). */
export const terminate = async (child: ChildProcess): Promise<number | null> => {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  child.kill("SIGTERM")
  return await exited
}

/** A worker process for the test's scope: killed when the test ends, whatever its outcome. */
export const startWorker = (databaseUrl: string, settings: WorkerSettings) =>
  Effect.acquireRelease(Effect.promise(() => spawnWorker(databaseUrl, settings)), (child) => Effect.promise(() => kill(child)))

// a slow verifying receiver ----------------------------------------------------------------------

/**
 * Answers 204 after `delayMs`, verifying each request with the secret of its path. Records every
 * `webhook-id` it got, and each time a request arrived while another with the same id was still
 * being answered (the same delivery sent twice at once).
 */
export const slowReceiver = async (delayMs: number) => {
  const verifiers = new Map<string, Webhook>()
  const received: Array<string> = []
  const inFlight = new Set<string>()
  const concurrent: Array<string> = []
  const rejected: Array<string> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const id = String(req.headers["webhook-id"])
      try {
        verifiers.get(req.url ?? "")!.verify(Buffer.concat(chunks).toString("utf8"), req.headers as Record<string, string>)
      } catch {
        rejected.push(id)
        res.writeHead(400).end()
        return
      }
      received.push(id)
      if (inFlight.has(id)) concurrent.push(id)
      inFlight.add(id)
      const answer = setTimeout(() => {
        inFlight.delete(id)
        res.writeHead(204).end()
      }, delayMs)
      // a sender that dies (SIGKILL) closes its connection: its attempt has ended, whatever this
      // receiver would still have done with it
      res.once("close", () => {
        if (res.writableFinished) return
        clearTimeout(answer)
        inFlight.delete(id)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    setSecret: (path: string, secret: string) => verifiers.set(path, new Webhook(secret)),
    received,
    concurrent,
    rejected,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
