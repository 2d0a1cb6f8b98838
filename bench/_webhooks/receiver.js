// The receiver of the webhook benchmark: raw node:http that reads the whole body and answers 204.
// `verify` as argument: every request is checked with `standardwebhooks` against the secret of
// its path (the parent sends them), and answered 400 when it does not verify.
// Counts requests, distinct `webhook-id`s and rejections, and the time of the first and last request.
import { createServer } from "node:http"
import { Webhook } from "standardwebhooks"
import { cpuSeconds, serve } from "./ipc.js"

const verify = process.argv[2] === "verify"
let verifiers = new Map()
let stats
const reset = () => {
  stats = { requests: 0, rejected: 0, ids: new Set(), first: 0, last: 0 }
}
reset()

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    const now = performance.now()
    if (stats.requests === 0) stats.first = now
    stats.last = now
    stats.requests++
    if (verify) {
      const raw = Buffer.concat(chunks).toString("utf8")
      try {
        verifiers.get(req.url).verify(raw, req.headers)
      } catch {
        stats.rejected++
        res.writeHead(400).end()
        return
      }
    }
    const id = req.headers["webhook-id"]
    if (typeof id === "string") stats.ids.add(id)
    res.writeHead(204).end()
  })
})

serve({
  secrets: ({ secrets }) => {
    verifiers = new Map(Object.entries(secrets).map(([path, secret]) => [path, new Webhook(secret)]))
    return {}
  },
  reset: () => {
    reset()
    return { cpu: cpuSeconds() }
  },
  stats: () => ({
    requests: stats.requests,
    unique: stats.ids.size,
    rejected: stats.rejected,
    spanMs: stats.last - stats.first,
    cpu: cpuSeconds()
  })
})

server.listen(0, "127.0.0.1", () => process.send({ type: "ready", port: server.address().port }))
