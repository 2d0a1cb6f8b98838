// A webhook delivery worker in a process of its own, for the crash tests (webhookCrash.test.ts):
// the BUILT host (`NodeRuntime.start`, what `image-policy serve` runs) over PostgreSQL, with its
// delivery worker and nothing else doing work. Run with `node` after `ensureBuilt()`:
//
//   node deliveryWorker.js '{"databaseUrl":"postgres://…","secretKey":"…","workerId":"a","leaseMs":6000,…}'
//
// `workerId` is the host's instance id (`--instance-id`): its leases are owned by `workerId/<start>`.
// The JSON may also hold timeoutMs, batchSize, concurrency, pollIntervalMs, renewEveryMs, schedule
// (seconds), drainMs (graceful stop), scanWorker (the scan worker's options; none runs without) and
// hangScans (true: the fixture provider never answers a file listing, so scans stay in flight).
// Prints one line `{"ready":true,"pid":…}` once the worker runs. SIGTERM stops it gracefully (exit
// 0); the crash tests use SIGKILL, which is the point.
import { FixtureVcs, StoreConfig } from "@image-policy/adapters"
import { App, NodeRuntime } from "@image-policy/host"
import * as Effect from "effect/Effect"

const settings = JSON.parse(process.argv[2] ?? "{}")
const worker = Object.fromEntries(
  ["leaseMs", "renewEveryMs", "timeoutMs", "batchSize", "concurrency", "pollIntervalMs", "schedule"]
    .filter((key) => settings[key] !== undefined)
    .map((key) => [key, settings[key]])
)

/** The fixture provider whose file listings never answer. */
function hanging(fixture) {
  return { ...fixture, listFiles: () => Effect.never }
}

const running = await NodeRuntime.start({
  port: 0,
  host: "127.0.0.1",
  store: StoreConfig.layer({ _tag: "postgres", url: settings.databaseUrl }),
  app: { ...App.defaults, accessLog: false, rateLimit: null },
  services: {
    secretKey: settings.secretKey,
    allowUnsafeWebhookTargets: true,
    ...(settings.hangScans === true ? { vcs: { fixture: hanging(FixtureVcs.make().provider) } } : {})
  },
  logLevel: "Warn",
  // only the delivery worker (and the scan worker when asked): no other background work in this process
  syncWorker: false,
  routineWorker: false,
  snoozeExpiryWorker: false,
  snapshotWorker: false,
  scanWorker: settings.scanWorker ?? false,
  deliveryWorker: worker,
  instanceId: settings.workerId,
  drainMs: settings.drainMs
})
process.once("SIGTERM", () => {
  running.stop().then(() => process.exit(0), () => process.exit(1))
})
console.log(JSON.stringify({ ready: true, pid: process.pid }))
