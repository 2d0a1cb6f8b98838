// The load generator (autocannon, programmatic), in its own child so it can be pinned to its own core.
import autocannon from "autocannon"

const run = (options) =>
  new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)))
  })

process.on("message", async (message) => {
  if (message?.type === "exit") process.exit(0)
  if (message?.type !== "load") return
  try {
    const r = await run(message.options)
    process.send({
      type: "load",
      id: message.id,
      result: {
        total: r.requests.total,
        ok: r["2xx"],
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        duration: r.duration,
        p50: r.latency.p50,
        p99: r.latency.p99,
        statusCodeStats: r.statusCodeStats
      }
    })
  } catch (error) {
    process.send({ type: "load", id: message.id, error: String(error?.stack ?? error) })
  }
})
process.on("disconnect", () => process.exit(0))
process.send({ type: "ready" })
