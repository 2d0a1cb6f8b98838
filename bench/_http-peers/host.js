// Our host (built package) started by `NodeRuntime.start`, as the CLI's `serve` starts it: memory
// store with the seed loaded, tracing off, rate limit off. argv[2] picks the variant:
// - none: access log off: the server of the targets;
// - "access-log": access log on at the log level Info (`serve`'s defaults); the parent sends this
//   child's stdout to /dev/null.
import { MemoryStore } from "@image-policy/adapters"
import { App, NodeRuntime, Seed } from "@image-policy/host"
import * as Result from "effect/Result"
import { host, paths, ready, seed } from "./fixture.js"

const variant = process.argv[2]

const running = await NodeRuntime.start({
  port: 0,
  host,
  store: MemoryStore.layer,
  app: { ...App.defaults, accessLog: variant === "access-log", rateLimit: null },
  seed: Result.getOrThrow(Seed.parse(JSON.stringify(seed))),
  tracing: process.env.BENCH_HOST_TRACING === "1",
  logLevel: variant === "access-log" ? "Info" : "Warn"
})
const org = running.boot.seeded[0]
const group = org.policyGroups["Base images"]
ready(running.port, paths(org.id, group.id, group.phases["Curated"]))
