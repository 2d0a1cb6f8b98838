// Effect steps per request (`npm run bench -- steps`): how many Effect operations the fiber runtime
// executes for one request of each route of the HTTP benchmark, for our host and for the bare HttpApi
// server, both as web handlers (`HttpApiBuilder.toWebHandler`, the path Deno serves) with the tracer
// off. Counted with a Supervisor and the OpSupervision runtime flag, so the figure is exact and does
// not depend on the machine's load: a change that removes Effect steps from the request path shows
// here even when it is below the noise of the CPU measurements of http.js. It is not a time: steps
// differ in cost (a context change costs about as much as 20 plain steps), so read it beside http.js.
// On Node our host runs about 15 steps fewer than here (Auth provides no services there).
import { MemoryStore } from "@image-policy/adapters"
import { App, Boot, Seed } from "@image-policy/host"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as Supervisor from "effect/Supervisor"
import { ApiLive } from "./_http-peers/effectApi.js"
import { apiKey, bodies, groupId, orgId, paths, phaseId, seed } from "./_http-peers/fixture.js"

const requests = Number(process.env.BENCH_STEPS_REQUESTS ?? 200)

let counting = false
const counts = new Map()
class Counter extends Supervisor.AbstractSupervisor {
  value = Effect.void
  onEffect(_fiber, effect) {
    if (counting) counts.set(effect._op, (counts.get(effect._op) ?? 0) + 1)
  }
}
const counted = Layer.mergeAll(
  Supervisor.addSupervisor(new Counter()),
  RuntimeFlags.enableOpSupervision,
  Layer.setTracerEnabled(false)
)

const routes = (p) => ({
  "GET teams": () => new Request(`http://bench${p.teams}`, { headers: { "x-api-key": apiKey } }),
  "POST mapping": (i) =>
    new Request(`http://bench${p.mappings}`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: bodies[i % bodies.length]
    })
})

/** Steps per request over `requests` requests, after as many unmeasured ones (first-use caches). */
const measure = async (handler, make) => {
  for (let i = 0; i < requests; i++) await (await handler(make(i))).text()
  counts.clear()
  counting = true
  for (let i = 0; i < requests; i++) {
    const response = await handler(make(i))
    const text = await response.text()
    if (response.status >= 300) throw new Error(`answered ${response.status}: ${text}`)
  }
  counting = false
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([op, n]) => `${op} ${Math.round(n / requests)}`)
  return { steps: total / requests, top }
}

const hostHandler = async () => {
  const store = await Effect.runPromise(Effect.scoped(Layer.build(MemoryStore.layer)))
  const storeLayer = Layer.succeedContext(store)
  const services = await Effect.runPromise(Effect.scoped(Layer.build(App.services(storeLayer))))
  const booted = await Effect.runPromise(
    Boot.boot({ seed: Either.getOrThrow(Seed.parse(JSON.stringify(seed))) }).pipe(Effect.provide(services))
  )
  const org = booted.seeded[0]
  const group = org.policyGroups["Base images"]
  const web = App.webHandler({ ...App.defaults, accessLog: false, rateLimit: null }, Layer.merge(storeLayer, counted))
  return { web, paths: paths(org.id, group.id, group.phases["Curated"]) }
}

export const main = async () => {
  const host = await hostHandler()
  const bare = { web: HttpApiBuilder.toWebHandler(Layer.mergeAll(ApiLive, HttpServer.layerContext, counted)), paths: paths(orgId, groupId, phaseId) }
  console.log(`\nEffect steps per request (web handlers, tracer off, ${requests} requests after ${requests} unmeasured)`)
  console.log(`  ${"server".padEnd(26)}${"route".padEnd(14)}${"steps".padStart(7)}  most frequent`)
  const results = {}
  for (const [label, server] of [["our host (memory store)", host], ["bare HttpApi", bare]]) {
    for (const [route, make] of Object.entries(routes(server.paths))) {
      const r = await measure(server.web.handler, make)
      ;(results[route] ??= {})[label] = r.steps
      console.log(`  ${label.padEnd(26)}${route.padEnd(14)}${Math.round(r.steps).toString().padStart(7)}  ${r.top.join(", ")}`)
    }
  }
  for (const route of Object.keys(results)) {
    const r = results[route]
    console.log(`  ${route.padEnd(14)} host / bare: ${(r["our host (memory store)"] / r["bare HttpApi"]).toFixed(2)}x the steps`)
  }
  await host.web.dispose()
  await bare.web.dispose()
}
