// HTTP benchmark (issue "HTTP host", Performance): our host beside a bare Effect 4 HttpApi server
// (tracer off and on), an Effect server without HttpApi, Fastify and raw node:http, measured in the
// same run. Each server runs in its own child pinned to core 1, the load generator (autocannon) in a
// child pinned to core 0. Prints req/s, p50/p99 latency and requests per server CPU-second, then our
// ratios and the issue's targets (MET/MISSED). Asserts nothing and never fails the process on a
// missed target. BENCH_SECONDS (default 8) and BENCH_WARMUP (default 2) set the measured and warm-up
// seconds per server and route (the measured seconds are taken in BENCH_ROUNDS slices, default 4,
// alternating between the servers); BENCH_CONNECTIONS (default 32); BENCH_SERVERS=host,effectOff,...
// runs only those servers; BENCH_PROFILE=<dir> starts the servers with `node --cpu-prof
// --cpu-prof-dir=<dir>` (one .cpuprofile per server, warm-up included).
// BENCH_HOST_BASELINE=<dir>[,<dir>...] adds the servers "base", "base2", ...: our host from snapshots of
// earlier built packages (made by `node bench/_snapshot.js <dir>`), so changes are measured against
// their baselines in one run. BENCH_MARKDOWN=1 also prints the table as Markdown rows.
import { execFileSync, spawn } from "node:child_process"
import { loadavg } from "node:os"
import { isAbsolute, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { apiKey, bodies } from "./_http-peers/fixture.js"

const here = fileURLToPath(new URL(".", import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const warmup = Number(process.env.BENCH_WARMUP ?? 2)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 4))

const allServers = [
  { name: "host", label: "our host (memory store)", file: "host.js", args: [] },
  // the default: access log on (one JSON line per request, at Info), written to /dev/null
  { name: "hostLog", label: "our host, access log on", file: "host.js", args: ["access-log"], stdout: "ignore" },
  // only when named: the same with stdout on a pipe that this process drains (as under a container
  // runtime or a log shipper), where each write costs more than on /dev/null
  { name: "hostLogPipe", label: "our host, access log, pipe", file: "host.js", args: ["access-log"], stdout: "pipe", optIn: true },
  // a diagnostic, only when named in BENCH_SERVERS: no stack traces at all (`Effect.withSpan` and
  // `Effect.fn` capture one per call even with the tracer off, and skip the capture when
  // `Error.stackTraceLimit` is 0), to price those captures; error logs lose their stacks
  // only when named: traces and metrics exported over OTLP (protobuf) to a collector stand-in inside
  // the server's process (so its CPU counts too), to price the export against `host`
  { name: "hostOtlp", label: "our host, OTLP export", file: "host.js", args: ["otlp"], optIn: true },
  { name: "hostNoStack", label: "our host, no stack traces", file: "host.js", args: [], nodeArgs: ["--stack-trace-limit=0"], optIn: true },
  { name: "effectOff", label: "bare HttpApi, tracer off", file: "effect.js", args: ["off"] },
  { name: "effectOn", label: "bare HttpApi, tracer on", file: "effect.js", args: ["on"] },
  { name: "effectServer", label: "Effect server, no HttpApi", file: "effectServer.js", args: [] },
  { name: "fastify", label: "Fastify", file: "fastify.js", args: [] },
  { name: "node", label: "raw node:http", file: "node.js", args: [] }
]
const baselines = (process.env.BENCH_HOST_BASELINE ?? "").split(",").map((d) => d.trim()).filter((d) => d !== "")
allServers.splice(
  1,
  0,
  ...baselines.flatMap((dir, i) => {
    const name = i === 0 ? "base" : `base${i + 1}`
    const label = `host snapshot ${dir.split("/").filter((p) => p !== "").pop()}`
    const file = join(resolve(dir), "host.js")
    return [
      { name, label: label.slice(0, 26), file, args: [] },
      // only when named: the snapshot with its access log on (/dev/null), e.g. `baseLog`
      { name: `${name}Log`, label: `${label.slice(0, 21)}, log`, file, args: ["access-log"], stdout: "ignore", optIn: true }
    ]
  })
)
const only = process.env.BENCH_SERVERS?.split(",").map((n) => n.trim())
const servers = only === undefined ? allServers.filter((s) => !s.optIn) : allServers.filter((s) => only.includes(s.name))
const profileArgs = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []
const routes = ["GET teams", "POST mapping"]

const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

// every child we start, killed at the end whatever happens
const children = new Set()
const killAll = () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  children.clear()
}
process.once("exit", killAll)

/** Starts `_http-peers/<file>` (pinned to `core` when taskset exists) and waits for its "ready" message. */
const startChild = (file, args, core, nodeArgs = [], stdout = "inherit") =>
  new Promise((resolve, reject) => {
    const script = isAbsolute(file) ? file : `${here}_http-peers/${file}`
    const stdio = ["ignore", stdout, "inherit", "ipc"]
    const child = hasTaskset
      ? spawn("taskset", ["-c", String(core), process.execPath, ...nodeArgs, script, ...args], { stdio })
      : spawn(process.execPath, [...nodeArgs, script, ...args], { stdio })
    children.add(child)
    // a piped stdout is read and dropped, as a log shipper would read it
    child.stdout?.resume()
    const timer = setTimeout(() => reject(new Error(`${file} did not report ready within 60 s`)), 60_000)
    child.once("exit", (code, signal) => {
      children.delete(child)
      clearTimeout(timer)
      reject(new Error(`${file} exited before it was ready (code ${code}, signal ${signal})`))
    })
    child.on("message", (message) => {
      if (message?.type === "ready") {
        clearTimeout(timer)
        resolve({ child, ...message })
      }
    })
  })

let nextId = 0
/** Sends `message` and resolves with the reply of the same type and id. */
const ask = (child, message) =>
  new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`child exited before ${message.type}`))
    const id = ++nextId
    const onMessage = (reply) => {
      if (reply?.type !== message.type || reply.id !== id) return
      child.off("message", onMessage)
      child.off("exit", onExit)
      if (reply.error !== undefined) reject(new Error(reply.error))
      else resolve(reply)
    }
    const onExit = () => reject(new Error(`child exited while answering ${message.type}`))
    child.on("message", onMessage)
    child.once("exit", onExit)
    child.send({ ...message, id })
  })

const stop = async (child) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.send({ type: "exit" })
  const timer = setTimeout(() => child.kill("SIGKILL"), 2_000)
  await exited
  clearTimeout(timer)
  children.delete(child)
}

const cpuSeconds = async (child) => {
  const { usage } = await ask(child, { type: "cpu" })
  return (usage.user + usage.system) / 1e6
}

const requestsFor = (route, paths) =>
  route === "GET teams"
    ? [{ method: "GET", path: paths.teams, headers: { "x-api-key": apiKey } }]
    : bodies.map((body) => ({
      method: "POST",
      path: paths.mappings,
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body
    }))

/** One request of each route before any load: the status and shape must be what we benchmark. */
const smokeCheck = async (label, base, paths) => {
  const get = await fetch(`${base}${paths.teams}`, { headers: { "x-api-key": apiKey } })
  const teams = await get.json()
  if (get.status !== 200 || teams.items?.length !== 5) {
    throw new Error(`${label}: GET teams answered ${get.status} ${JSON.stringify(teams)}`)
  }
  const post = await fetch(`${base}${paths.mappings}`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: bodies[0]
  })
  const mapping = await post.json()
  if ((post.status !== 200 && post.status !== 201) || mapping.fromImage === undefined) {
    throw new Error(`${label}: POST mapping answered ${post.status} ${JSON.stringify(mapping)}`)
  }
  const bad = await fetch(`${base}${paths.teams}`, { headers: { "x-api-key": "wrong-secret-0123456789abcdefghijklmnopqrstuvw" } })
  await bad.text()
  if (bad.status !== 401) throw new Error(`${label}: a wrong key answered ${bad.status}, not 401`)
}

const loadOptions = (server, route, duration) => ({
  url: `http://127.0.0.1:${server.port}`,
  connections,
  pipelining: 1,
  duration,
  requests: requestsFor(route, server.paths)
})

/** One measured slice: the load generator's figures and the server's CPU seconds meanwhile. */
const slice = async (generator, server, route) => {
  const cpu0 = await cpuSeconds(server.child)
  const { result } = await ask(generator, { type: "load", options: loadOptions(server, route, seconds / rounds) })
  const cpu = (await cpuSeconds(server.child)) - cpu0
  return { ...result, cpu }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Sums over the slices; per CPU-second and latencies are medians over slices (robust to one disturbed slice). */
const summarize = (slices) => {
  const sum = (f) => slices.reduce((acc, x) => acc + f(x), 0)
  const duration = sum((x) => x.duration)
  const statusCodeStats = {}
  for (const x of slices) for (const code of Object.keys(x.statusCodeStats ?? {})) statusCodeStats[code] = true
  return {
    total: sum((x) => x.total),
    non2xx: sum((x) => x.non2xx),
    errors: sum((x) => x.errors),
    timeouts: sum((x) => x.timeouts),
    statusCodeStats,
    reqPerSec: sum((x) => x.total) / duration,
    cpuShare: sum((x) => x.cpu) / duration,
    perCpuSecond: median(slices.map((x) => x.total / x.cpu)),
    p50: median(slices.map((x) => x.p50)),
    p99: median(slices.map((x) => x.p99))
  }
}

const int = (n) => Math.round(n).toLocaleString("en-US")
const ratio = (a, b) => `${(a / b).toFixed(2)}x`

/** The table as Markdown rows (BENCH_MARKDOWN=1), as docs/performance.md shows it. */
const printMarkdown = (results) => {
  console.log("\n| server | route | req/s | p50 ms | p99 ms | CPU | req/CPU-s |\n|---|---|---:|---:|---:|---:|---:|")
  for (const route of routes) {
    for (const s of servers) {
      const r = results[s.name]?.[route]
      if (r === undefined) continue
      console.log(
        `| ${s.label} | ${route} | ${int(r.reqPerSec)} | ${+r.p50.toFixed(1)} | ${+r.p99.toFixed(1)} | ${Math.round(r.cpuShare * 100)}% | ${
          int(r.perCpuSecond)
        } |`
      )
    }
  }
}

const printTable = (results) => {
  console.log(
    `\n  ${"server".padEnd(27)}${"route".padEnd(14)}${"req/s".padStart(9)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}` +
      `${"CPU".padStart(6)}${"req/CPU-s".padStart(11)}  notes`
  )
  for (const route of routes) {
    for (const s of servers) {
      const r = results[s.name]?.[route]
      if (r === undefined) continue
      const notes = []
      if (r.non2xx > 0) notes.push(`${int(r.non2xx)} non-2xx ${JSON.stringify(Object.keys(r.statusCodeStats ?? {}))}`)
      if (r.errors > 0) notes.push(`${int(r.errors)} errors`)
      if (r.timeouts > 0) notes.push(`${int(r.timeouts)} timeouts`)
      if (r.cpuShare < 0.9) notes.push("server below 90% of its core: load generator bound, or core shared")
      console.log(
        `  ${s.label.padEnd(27)}${route.padEnd(14)}${int(r.reqPerSec).padStart(9)}${String(+r.p50.toFixed(1)).padStart(8)}${
          String(+r.p99.toFixed(1)).padStart(8)
        }` +
          `${`${Math.round(r.cpuShare * 100)}%`.padStart(6)}${int(r.perCpuSecond).padStart(11)}  ${notes.join("; ")}`
      )
    }
  }
}

/** The issue's targets, per server CPU-second: [server, peer, route, minimum, what]. */
const targets = [
  ["host", "effectOff", "GET teams", 0.9, "host / bare HttpApi (tracer off)"],
  ["host", "effectOff", "POST mapping", 0.8, "host / bare HttpApi (tracer off)"],
  ["host", "node", "GET teams", 0.3, "host / raw node:http"],
  ["host", "node", "POST mapping", 0.15, "host / raw node:http"],
  ["hostLog", "host", "GET teams", 0.8, "access log on / off"],
  ["hostLog", "host", "POST mapping", 0.8, "access log on / off"]
]

const printRatios = (results) => {
  const host = results.host
  const ratioRow = (label, a, b, route) =>
    console.log(
      `  ${label.padEnd(27)}${route.padEnd(15)}${ratio(a.perCpuSecond, b.perCpuSecond).padStart(14)}${
        ratio(a.reqPerSec, b.reqPerSec).padStart(8)
      }`
    )
  console.log(`\n  ${"our host vs".padEnd(27)}${"route".padEnd(15)}per CPU-second   req/s`)
  const peers = [
    ...baselines.map((_, i) => (i === 0 ? "base" : `base${i + 1}`)),
    "hostLog",
    "hostLogPipe",
    "hostNoStack",
    "effectOff",
    "effectOn",
    "effectServer",
    "fastify",
    "node"
  ]
  for (const peer of peers) {
    for (const route of routes) {
      const a = host?.[route]
      const b = results[peer]?.[route]
      if (a === undefined || b === undefined) continue
      ratioRow(servers.find((s) => s.name === peer).label, a, b, route)
    }
  }
  // each build's access log against the same build without it (the snapshots' too, when named)
  const logPairs = [
    ["hostLog", "host"],
    ["hostLogPipe", "host"],
    ...baselines.map((_, i) => (i === 0 ? "base" : `base${i + 1}`)).map((b) => [`${b}Log`, b])
  ]
  const present = logPairs.filter(([on, off]) => routes.some((route) => results[on]?.[route] && results[off]?.[route]))
  if (present.length > 0) {
    console.log(`\n  ${"access log on / off".padEnd(27)}${"route".padEnd(15)}per CPU-second   req/s`)
    for (const [on, off] of present) {
      for (const route of routes) {
        const a = results[on]?.[route]
        const b = results[off]?.[route]
        if (a !== undefined && b !== undefined) ratioRow(servers.find((s) => s.name === on).label, a, b, route)
      }
    }
  }
  console.log("\n  bare HttpApi + key auth vs raw node:http per CPU-second")
  for (const route of routes) {
    const node = results.node?.[route]
    if (node === undefined) continue
    const on = results.effectOn?.[route]
    const off = results.effectOff?.[route]
    console.log(
      `  ${route.padEnd(15)} tracer on ${on ? ratio(on.perCpuSecond, node.perCpuSecond) : "-"}   tracer off ${
        off ? ratio(off.perCpuSecond, node.perCpuSecond) : "-"
      }`
    )
  }
  // the floor: raw node:http's own logic on Effect's server, without router, HttpApi or schemas
  const floors = routes.filter((route) => results.node?.[route] && results.effectServer?.[route])
  if (floors.length > 0) {
    console.log("\n  the Effect floor: the same logic as raw node:http on @effect/platform-node's server (no router, HttpApi or schemas)")
    for (const route of floors) {
      const value = results.effectServer[route].perCpuSecond / results.node[route].perCpuSecond
      const target = targets.find(([s, p, r]) => s === "host" && p === "node" && r === route)[3]
      console.log(
        `  ${route.padEnd(15)} Effect server / raw node:http ${
          ratio(results.effectServer[route].perCpuSecond, results.node[route].perCpuSecond)
        }` +
          `   (${target.toFixed(2)}x raw node:http = ${(target / value).toFixed(2)}x this floor)`
      )
    }
  }
  console.log("\n  targets (per server CPU-second, servers in the same run)")
  let allMet = true
  let checked = 0
  for (const [server, peer, route, min, what] of targets) {
    const a = results[server]?.[route]
    const b = results[peer]?.[route]
    if (a === undefined || b === undefined) continue
    const value = a.perCpuSecond / b.perCpuSecond
    const met = value >= min
    allMet &&= met
    checked++
    console.log(
      `  ${met ? "MET    " : "MISSED "} ${route.padEnd(14)} ${what.padEnd(34)} ${value.toFixed(3)}x  (target >= ${min.toFixed(2)}x)`
    )
  }
  if (checked === 0) console.log("  not evaluated: run host, hostLog, effectOff and node together")
  else console.log(allMet ? "\n  => every target evaluated is met" : "\n  => TARGETS MISSED (see MISSED lines above)")
}

export const main = async () => {
  const load = () => loadavg().map((l) => l.toFixed(1)).join(" ")
  console.log(`\nload average before the run: ${load()} (2 cores; other processes make req/s noisy, req/CPU-s less so)`)
  console.log(
    `${servers.length} servers x ${routes.length} routes, ${warmup} s warm-up + ${seconds} s measured each ` +
      `(${rounds} slices of ${seconds / rounds} s, servers in turn), ${connections} connections; ` +
      (hasTaskset ? "servers pinned to core 1, load generator to core 0" : "taskset not found: nothing pinned")
  )
  const results = {}
  try {
    const generator = (await startChild("load.js", [], 0)).child
    // every server runs for the whole benchmark (an idle server costs no CPU); the measured seconds
    // are cut into slices taken in turn, so a burst of other work on the machine hits all servers alike
    const running = []
    for (const s of servers) {
      const server = await startChild(s.file, s.args, 1, [...profileArgs, ...(s.nodeArgs ?? [])], s.stdout)
      await smokeCheck(s.label, `http://127.0.0.1:${server.port}`, server.paths)
      running.push({ ...s, server })
      results[s.name] = {}
    }
    for (const route of routes) {
      if (warmup > 0) {
        for (const { server } of running) await ask(generator, { type: "load", options: loadOptions(server, route, warmup) })
      }
      const slices = new Map(running.map((s) => [s.name, []]))
      for (let round = 0; round < rounds; round++) {
        for (const { name, server } of running) slices.get(name).push(await slice(generator, server, route))
      }
      for (const s of running) {
        const r = (results[s.name][route] = summarize(slices.get(s.name)))
        console.log(
          `  ${s.label.padEnd(27)}${route.padEnd(14)}${int(r.reqPerSec).padStart(9)} req/s  ${int(r.perCpuSecond).padStart(7)} req/CPU-s`
        )
      }
    }
    for (const { server } of running) await stop(server.child)
    await stop(generator)
  } finally {
    killAll()
  }
  console.log(`load average after the run: ${load()}`)
  printTable(results)
  printRatios(results)
  if (process.env.BENCH_MARKDOWN === "1") printMarkdown(results)
}
