// One host of a cluster in a process of its own, for the several-hosts test (threeHosts.test.ts):
// the BUILT host (`NodeRuntime.start`, what `image-policy serve` runs) over PostgreSQL with every
// worker running, short leases and fast timers. Run with `node` after `ensureBuilt()`:
//
//   node clusterHost.js '{"databaseUrl":"postgres://…","secretKey":"…","seed":{…}|null,"instanceId":"host-a","workers":{…}}'
//
// `workers` holds each worker's options by the start option's name (deliveryWorker, scanWorker, …):
// the leases are passed explicitly so the test does not depend on the defaults. Logs (JSON lines,
// Debug level: each scheduled run done is one) go to stdout. Prints one line
// `{"ready":true,"url":…,"seeded":[…]}` once the host listens. The test uses SIGKILL.
import { StoreConfig } from "@image-policy/adapters"
import { App, NodeRuntime, Seed } from "@image-policy/host"

const settings = JSON.parse(process.argv[2] ?? "{}")
const seed = settings.seed == null ? undefined : Seed.parse(JSON.stringify(settings.seed))
if (seed !== undefined && seed._tag !== "Success") throw new Error("clusterHost.js: the seed does not parse")

const running = await NodeRuntime.start({
  port: 0,
  host: "127.0.0.1",
  store: StoreConfig.layer({ _tag: "postgres", url: settings.databaseUrl }),
  app: { ...App.defaults, accessLog: false, rateLimit: null },
  services: { secretKey: settings.secretKey, allowUnsafeWebhookTargets: true },
  seed: seed?.success,
  // one machine, three hosts: each its own instance, or a start would release another's leases
  instanceId: settings.instanceId,
  logLevel: "Debug",
  ...settings.workers
})
process.once("SIGTERM", () => {
  running.stop().then(() => process.exit(0), () => process.exit(1))
})
console.log(JSON.stringify({ ready: true, url: running.url, seeded: running.boot.seeded }))
