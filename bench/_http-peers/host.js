// Our host (built package) started by `NodeRuntime.start`, as the CLI's `serve` starts it: memory
// store with the seed loaded, tracing off, rate limit off. argv[2] picks the variant:
// - none: access log off: the server of the targets;
// - "access-log": access log on at the log level Info (`serve`'s defaults); the parent sends this
//   child's stdout to /dev/null;
// - "otlp": access log off, traces and metrics exported over OTLP/HTTP protobuf (default intervals)
//   to a collector stand-in in this process that answers 200 to everything.
import { MemoryStore } from "@image-policy/adapters"
import { App, NodeRuntime, Otlp, Seed } from "@image-policy/host"
import * as Result from "effect/Result"
import { createServer } from "node:http"
import { host, paths, ready, seed } from "./fixture.js"

const variant = process.argv[2]

const collector = async () => {
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => response.writeHead(200).end())
  })
  await new Promise((resolve) => server.listen(0, host, resolve))
  return Result.getOrThrow(Otlp.fromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://${host}:${server.address().port}` }))
}

const running = await NodeRuntime.start({
  port: 0,
  host,
  store: MemoryStore.layer,
  app: { ...App.defaults, accessLog: variant === "access-log", rateLimit: null },
  seed: Result.getOrThrow(Seed.parse(JSON.stringify(seed))),
  tracing: process.env.BENCH_HOST_TRACING === "1",
  telemetry: variant === "otlp" ? await collector() : undefined,
  logLevel: variant === "access-log" ? "Info" : "Warn"
})
const org = running.boot.seeded[0]
const group = org.policyGroups["Base images"]
ready(running.port, paths(org.id, group.id, group.phases["Curated"]))
