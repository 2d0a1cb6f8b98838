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
import { App, Boot, NodeRuntime, Seed } from "@image-policy/host"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Tracer from "effect/Tracer"
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
const countSteps = async (handler, make, context) => {
  for (let i = 0; i < requests; i++) await call(handler, make(i), context)
  counts.clear()
  for (let i = 0; i < requests; i++) await call(handler, make(i), context)
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([op, n]) => `${op} ${(n / requests).toFixed(0)}`)
  counts.clear()
  return { steps: total / requests, top }
}

/**
 * CPU µs per request, without the counting tracer, for every (server, route) case: one warm-up
 * slice each, then 5 slices each taken in turn (so JIT warm-up and bursts of other work on the
 * machine hit every case alike), median of the 5.
 */
const cpuPerRequest = async (cases) => {
  const slice = async ({ handler, make, context }) => {
    const c0 = process.cpuUsage()
    for (let i = 0; i < timedRequests / 5; i++) await call(handler, make(i), context)
    const c = process.cpuUsage(c0)
    return (c.user + c.system) / (timedRequests / 5)
  }
  for (const c of cases) await slice(c)
  const slices = cases.map(() => [])
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < cases.length; i++) slices[i].push(await slice(cases[i]))
  }
  return slices.map((s) => s.sort((a, b) => a - b)[2])
}

/**
 * The server's logger (JSON lines in batches) over a console that drops what it is given: the
 * access log's steps and formatting are counted, not its writes (a few per second in batches).
 */
const accessLogContext = () =>
  Effect.runPromise(
    Layer.build(NodeRuntime.loggerLayer("Info")).pipe(
      Effect.provideService(Console.Console, { ...globalThis.console, log: () => {} }),
      Effect.scoped
    )
  )

const hostHandler = async (accessLog = false) => {
  const store = await Effect.runPromise(Effect.scoped(Layer.build(MemoryStore.layer)))
  const storeLayer = Layer.succeedContext(store)
  const services = await Effect.runPromise(Effect.scoped(Layer.build(App.services(storeLayer))))
  const booted = await Effect.runPromise(
    Boot.boot({ seed: Result.getOrThrow(Seed.parse(JSON.stringify(seed))) }).pipe(Effect.provideContext(services))
  )
  const org = booted.seeded[0]
  const group = org.policyGroups["Base images"]
  const web = App.webHandler({ ...App.defaults, accessLog, rateLimit: null }, storeLayer)
  return { web, paths: paths(org.id, group.id, group.phases["Curated"]), context: accessLog ? await accessLogContext() : Context.empty() }
}

const bareHandler = () => ({
  web: HttpRouter.toWebHandler(ApiLive.pipe(Layer.provide(HttpServer.layerServices)), { disableLogger: true }),
  paths: paths(orgId, groupId, phaseId),
  context: Context.empty()
})

export const main = async () => {
  const host = await hostHandler()
  const hostLog = await hostHandler(true)
  const bare = bareHandler()
  const off = Context.make(References.TracerEnabled, false)
  console.log(
    `\nEffect steps and CPU per request (web handlers, tracer off; steps over ${requests} requests after ${requests} unmeasured, ` +
      `CPU: median of 5 slices of ${timedRequests / 5} requests after one unmeasured, cases in turn)`
  )
  console.log(`  ${"server".padEnd(26)}${"route".padEnd(14)}${"steps".padStart(7)}${"CPU µs".padStart(9)}  most frequent steps`)
  const cases = []
  for (const [label, server] of [["our host (memory store)", host], ["our host, access log on", hostLog], ["bare HttpApi", bare]]) {
    for (const [route, make] of Object.entries(routes(server.paths))) {
      const r = await countSteps(server.web.handler, make, Context.merge(server.context, counting))
      cases.push({ label, route, steps: r, handler: server.web.handler, make, context: Context.merge(server.context, off) })
    }
  }
  const cpu = await cpuPerRequest(cases)
  const results = {}
  cases.forEach(({ label, route, steps }, i) => {
    ;(results[route] ??= {})[label] = { steps: steps.steps, cpu: cpu[i] }
    console.log(
      `  ${label.padEnd(26)}${route.padEnd(14)}${Math.round(steps.steps).toString().padStart(7)}${cpu[i].toFixed(1).padStart(9)}  ${
        steps.top.join(", ")
      }`
    )
  })
  for (const route of Object.keys(results)) {
    const h = results[route]["our host (memory store)"]
    const b = results[route]["bare HttpApi"]
    const l = results[route]["our host, access log on"]
    console.log(
      `  ${route.padEnd(14)} host / bare: ${(h.steps / b.steps).toFixed(2)}x the steps, ${
        (h.cpu / b.cpu).toFixed(2)
      }x the CPU per request; ` +
        `the access log: +${Math.round(l.steps - h.steps)} steps, +${(l.cpu - h.cpu).toFixed(1)} µs`
    )
  }
  await host.web.dispose()
  await hostLog.web.dispose()
  await bare.web.dispose()
}
