// Effect steps and CPU per request (`npm run bench -- steps`), for our host and for the bare HttpApi
// server, both as web handlers (`HttpRouter.toWebHandler`, the path Deno serves), tracer off.
//
// Steps: how many Effect primitives the fiber runtime evaluates for one request of each route of the
// HTTP benchmark. Effect 3 counted them with a Supervisor and the OpSupervision runtime flag; Effect
// 4 has neither. Its run loop hands every primitive it evaluates to the current Tracer's optional
// `context(primitive, fiber)` hook (the hook tracing backends use to run each step inside their own
// context), so a Tracer whose hook counts and then evaluates the primitive gives the same exact,
// machine-independent figure. The counting tracer is put in each request's context only while
// counting; the tracer flag stays off, so no span is made (the platform skips its request span and
// route attribute when tracing is off, whichever tracer is installed). Effect 4 runs a
// continuation (the function of a `map`/`flatMap`) inline, inside the step that produced its
// input, so those are not steps of their own; Effect 3's count included them: compare step counts
// within one Effect version only.
//
// CPU per request: process CPU time (user + system) over the same requests without the counting
// tracer, after a warm-up: a single-process micro-benchmark of the web handler (Request and Response
// objects included), less noisy than the HTTP benchmark but not a server's figure.
import { MemoryStore } from "@image-policy/adapters"
import { App, Boot, Seed } from "@image-policy/host"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Tracer from "effect/Tracer"
import { HttpRouter, HttpServer } from "effect/http"
import { ApiLive } from "./_http-peers/effectApi.js"
import { apiKey, bodies, groupId, orgId, paths, phaseId, seed } from "./_http-peers/fixture.js"

const requests = Number(process.env.BENCH_STEPS_REQUESTS ?? 200)
const timedRequests = Number(process.env.BENCH_STEPS_TIMED ?? 5_000)

// the run loop's keys for a primitive's evaluation and its name (effect/src/internal/core.ts)
const evaluate = "~effect/Effect/evaluate"
const identifier = "~effect/Effect/identifier"

const counts = new Map()
const countingTracer = Tracer.make({
  span: (options) => Tracer.nativeTracer.span(options),
  context: (primitive, fiber) => {
    const op = primitive[identifier] ?? "?"
    counts.set(op, (counts.get(op) ?? 0) + 1)
    return primitive[evaluate](fiber)
  }
})
/** Added to each counted request's context (the web handler merges it into the request fiber's). */
const counting = Context.make(Tracer.Tracer, countingTracer).pipe(Context.add(References.TracerEnabled, false))

const routes = (p) => ({
  "GET teams": () => new Request(`http://bench${p.teams}`, { headers: { "x-api-key": apiKey } }),
  "POST mapping": (i) =>
    new Request(`http://bench${p.mappings}`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: bodies[i % bodies.length]
    })
})

const call = async (handler, request, context) => {
  const response = await handler(request, context)
  const text = await response.text()
  if (response.status >= 300) throw new Error(`answered ${response.status}: ${text}`)
}

/** Steps per request over `requests` requests, after as many unmeasured ones (first-use caches). */
const countSteps = async (handler, make) => {
  for (let i = 0; i < requests; i++) await call(handler, make(i), counting)
  counts.clear()
  for (let i = 0; i < requests; i++) await call(handler, make(i), counting)
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([op, n]) => `${op} ${(n / requests).toFixed(0)}`)
  counts.clear()
  return { steps: total / requests, top }
}

/** CPU µs per request, without the counting tracer: median of 5 slices after a warm-up slice. */
const cpuPerRequest = async (handler, make, context) => {
  const slice = async () => {
    const c0 = process.cpuUsage()
    for (let i = 0; i < timedRequests / 5; i++) await call(handler, make(i), context)
    const c = process.cpuUsage(c0)
    return (c.user + c.system) / (timedRequests / 5)
  }
  await slice()
  const slices = []
  for (let i = 0; i < 5; i++) slices.push(await slice())
  return slices.sort((a, b) => a - b)[2]
}

const hostHandler = async () => {
  const store = await Effect.runPromise(Effect.scoped(Layer.build(MemoryStore.layer)))
  const storeLayer = Layer.succeedContext(store)
  const services = await Effect.runPromise(Effect.scoped(Layer.build(App.services(storeLayer))))
  const booted = await Effect.runPromise(
    Boot.boot({ seed: Result.getOrThrow(Seed.parse(JSON.stringify(seed))) }).pipe(Effect.provideContext(services))
  )
  const org = booted.seeded[0]
  const group = org.policyGroups["Base images"]
  const web = App.webHandler({ ...App.defaults, accessLog: false, rateLimit: null }, storeLayer)
  return { web, paths: paths(org.id, group.id, group.phases["Curated"]) }
}

const bareHandler = () => ({
  web: HttpRouter.toWebHandler(ApiLive.pipe(Layer.provide(HttpServer.layerServices)), { disableLogger: true }),
  paths: paths(orgId, groupId, phaseId)
})

export const main = async () => {
  const host = await hostHandler()
  const bare = bareHandler()
  const off = Context.make(References.TracerEnabled, false)
  console.log(`\nEffect steps and CPU per request (web handlers, tracer off; steps over ${requests} requests after ${requests} unmeasured, ` +
    `CPU: median of 5 slices of ${timedRequests / 5} requests after one unmeasured)`)
  console.log(`  ${"server".padEnd(26)}${"route".padEnd(14)}${"steps".padStart(7)}${"CPU µs".padStart(9)}  most frequent steps`)
  const results = {}
  for (const [label, server] of [["our host (memory store)", host], ["bare HttpApi", bare]]) {
    for (const [route, make] of Object.entries(routes(server.paths))) {
      const r = await countSteps(server.web.handler, make)
      const cpu = await cpuPerRequest(server.web.handler, make, off)
      ;(results[route] ??= {})[label] = { steps: r.steps, cpu }
      console.log(`  ${label.padEnd(26)}${route.padEnd(14)}${Math.round(r.steps).toString().padStart(7)}${cpu.toFixed(1).padStart(9)}  ${r.top.join(", ")}`)
    }
  }
  for (const route of Object.keys(results)) {
    const h = results[route]["our host (memory store)"]
    const b = results[route]["bare HttpApi"]
    console.log(`  ${route.padEnd(14)} host / bare: ${(h.steps / b.steps).toFixed(2)}x the steps, ${(h.cpu / b.cpu).toFixed(2)}x the CPU per request`)
  }
  await host.web.dispose()
  await bare.web.dispose()
}
