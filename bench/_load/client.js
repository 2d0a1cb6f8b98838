// The load generator of `bench/load.js`, in its own process so it never takes the host's event loop:
// open loop at a fixed rate. Request i is due at start + i / rate whatever happened to the requests
// before it (a slow answer does not delay the next request, unlike a closed loop of connections),
// and its latency counts from that due time, so time a request waited for a socket or for this
// process to catch up is in the figure (no coordinated omission).
//
// The parent sends `run` with the plan (base URL, rate, seconds, each organization's keys and ids,
// the mix); this process answers with the counts, statuses and latencies, and sends a `tick` every
// `tickSeconds` with the window's figures.
import { Agent, request } from "node:http"
import { mix } from "./mix.js"

const cpuSeconds = () => {
  const { system, user } = process.cpuUsage()
  return (user + system) / 1e6
}

/** mulberry32: a small seeded generator, so a run's sequence of requests is the same every time. */
const random = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const percentile = (sorted, p) => sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

const summary = (latencies) => {
  const sorted = Float64Array.from(latencies).sort()
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]
  }
}

const run = async ({ baseUrl, rate, seconds, orgs, tickSeconds, timeoutMs, seed, quiet }) => {
  const url = new URL(baseUrl)
  // an idle socket is closed after 2 s, before the server's keep-alive timeout (Node's 5 s): a
  // request on a socket the server is closing at that moment fails with ECONNRESET, a race of
  // the client's pool, not an answer of the host
  const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256, timeout: 2_000 })
  const next = random(seed)
  const total = Math.round(rate * seconds)
  const ops = mix.flatMap((op) => Array.from({ length: op.weight }, () => op))
  // per organization and role: the next key (round robin, so every key sees the same share)
  const turn = orgs.map(() => ({}))
  const byOp = new Map(mix.map((op) => [op.name, { sent: 0, statuses: {}, errors: 0, latencies: [] }]))
  const unexpected = []
  // failed requests by kind (`<request> <status or error>`), all of them, beside the first 20 in full
  const failures = {}
  const all = []
  let window = { done: 0, errors: 0, latencies: [] }
  let done = 0
  let errors = 0
  let inFlight = 0
  let maxInFlight = 0
  let maxLagMs = 0
  const cpu0 = cpuSeconds()
  const t0 = performance.now() + 50

  const finish = (op, dueAt, status, error, body) => {
    const latency = performance.now() - dueAt
    const stats = byOp.get(op.name)
    inFlight--
    done++
    window.done++
    all.push(latency)
    window.latencies.push(latency)
    stats.latencies.push(latency)
    if (error !== undefined) {
      stats.errors++
      errors++
      window.errors++
      failures[`${op.name}: ${error}`] = (failures[`${op.name}: ${error}`] ?? 0) + 1
      if (unexpected.length < 20) unexpected.push({ op: op.name, error })
      return
    }
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1
    if (!op.expect.includes(status)) {
      stats.errors++
      errors++
      window.errors++
      failures[`${op.name}: ${status}`] = (failures[`${op.name}: ${status}`] ?? 0) + 1
      if (unexpected.length < 20) unexpected.push({ op: op.name, status, body: body.slice(0, 300) })
    }
  }

  const send = (i, dueAt) => {
    const op = ops[Math.floor(next() * ops.length)]
    const orgIndex = Math.floor(next() * orgs.length)
    const org = orgs[orgIndex]
    const keys = org.keys[op.role]
    const k = turn[orgIndex][op.role] ?? 0
    turn[orgIndex][op.role] = (k + 1) % keys.length
    const call = op.make(org, next, i)
    const body = call.body === undefined ? undefined : JSON.stringify(call.body)
    const stats = byOp.get(op.name)
    stats.sent++
    inFlight++
    // a destroyed request may report through both the request and its response: count it once
    let settled = false
    const settle = (status, error, text) => {
      if (settled) return
      settled = true
      finish(op, dueAt, status, error, text)
    }
    if (inFlight > maxInFlight) maxInFlight = inFlight
    const req = request({
      agent,
      host: url.hostname,
      port: url.port,
      method: call.method,
      path: call.path,
      headers: {
        "x-api-key": keys[k],
        ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      }
    }, (res) => {
      const chunks = []
      res.on("data", (c) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        if (res.statusCode < 300 && op.after !== undefined) {
          try {
            op.after(org, JSON.parse(text))
          } catch {
            // an answer the mix cannot read still counts by its status
          }
        }
        settle(res.statusCode, undefined, text)
      })
      res.on("error", (e) => settle(0, `response: ${e.message}`, ""))
    })
    // A request still waiting for one of the pool's sockets `timeoutMs` after its due time is
    // dropped unsent (an error), so an overloaded host leaves a bounded queue and the run ends; one
    // already sent gets `timeoutMs` more to answer. Aborting sent requests at their due time's
    // deadline instead would close a connection per request and waste the host's work on answers
    // nobody reads: that measures the collapse of the client, not the host's capacity.
    let timer = setTimeout(() => {
      if (req.socket === null || req.socket === undefined || req.socket.connecting) {
        req.destroy(new Error(`not sent within ${timeoutMs} ms of its due time (host saturated)`))
      } else {
        timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms of being sent`)), timeoutMs)
      }
    }, dueAt + timeoutMs - performance.now())
    req.on("close", () => clearTimeout(timer))
    req.on("error", (e) => settle(0, `${e.code ?? ""} ${e.message}`.trim(), ""))
    if (body !== undefined) req.write(body)
    req.end()
  }

  const ticks = []
  let lastTick = t0
  let cpuTick = cpu0
  let sent = 0
  await new Promise((resolve) => {
    const loop = () => {
      const now = performance.now()
      // every request due by now goes out now; the lag of the oldest one says whether this process kept up
      while (sent < total && t0 + (sent * 1000) / rate <= now) {
        const dueAt = t0 + (sent * 1000) / rate
        if (now - dueAt > maxLagMs) maxLagMs = now - dueAt
        send(sent, dueAt)
        sent++
      }
      if (now - lastTick >= tickSeconds * 1000) {
        const s = summary(window.latencies)
        const cpu = cpuSeconds()
        const tick = {
          atSeconds: (now - t0) / 1000,
          // answered as expected, per second of this window
          rate: (window.done - window.errors) / ((now - lastTick) / 1000),
          errors: window.errors,
          p50: s.p50,
          p99: s.p99,
          max: s.max,
          inFlight,
          clientCpu: (cpu - cpuTick) / ((now - lastTick) / 1000),
          quiet
        }
        ticks.push(tick)
        process.send({ type: "tick", tick })
        window = { done: 0, errors: 0, latencies: [] }
        lastTick = now
        cpuTick = cpu
      }
      if (sent >= total && inFlight === 0) return resolve()
      setTimeout(loop, sent < total ? Math.max(0, t0 + (sent * 1000) / rate - performance.now()) : 5)
    }
    setTimeout(loop, 50)
  })
  const lastDue = t0 + ((total - 1) * 1000) / rate
  const endedAt = performance.now()
  agent.destroy()
  return {
    total,
    done,
    errors,
    ok: done - errors,
    // answers with an expected status per second, from the first due time to the last answer
    achievedRate: (done - errors) / ((endedAt - t0) / 1000),
    scheduleSeconds: (lastDue - t0) / 1000,
    drainMs: endedAt - lastDue,
    maxLagMs,
    maxInFlight,
    clientCpuSeconds: cpuSeconds() - cpu0,
    latency: summary(all),
    ops: [...byOp].map(([name, s]) => ({ name, sent: s.sent, statuses: s.statuses, errors: s.errors, latency: summary(s.latencies) })),
    unexpected,
    failures,
    ticks
  }
}

process.on("message", async (message) => {
  if (message?.type === "exit") process.exit(0)
  if (message?.type !== "run") return
  try {
    process.send({ type: "run", id: message.id, ...(await run(message.plan)) })
  } catch (error) {
    process.send({ type: "run", id: message.id, error: String(error?.stack ?? error) })
  }
})
process.on("disconnect", () => process.exit(0))
process.send({ type: "ready" })
