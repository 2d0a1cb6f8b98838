// Our host (built package) on the memory store: seed loaded, tracing off, access log off, rate limit off.
import { MemoryStore } from "@image-policy/adapters"
import { App, NodeRuntime, Seed } from "@image-policy/host"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import { host, paths, ready, seed } from "./fixture.js"

const running = await NodeRuntime.start({
  port: 0,
  host,
  store: MemoryStore.layer,
  app: { ...App.defaults, accessLog: false, rateLimit: null },
  seed: Either.getOrThrow(Seed.parse(JSON.stringify(seed))),
  tracing: process.env.BENCH_HOST_TRACING === "1",
  logLevel: LogLevel.Warning
})
const org = running.boot.seeded[0]
const group = org.policyGroups["Base images"]
ready(running.port, paths(org.id, group.id, group.phases["Curated"]))
