// The peers of the webhook benchmark, in one child pinned to the worker's core:
// - `sign`: raw Standard Webhooks signing throughput, `standardwebhooks` signing the same bodies
//   our deliveries carry, in a loop (one `Webhook` per secret, made once);
// - `fetch`: a plain `fetch` loop (Node's undici, keep-alive) POSTing the same signed bodies to the
//   same receiver with the same concurrency as our worker's lanes.
// The bodies are the CloudEvents our sender renders (`HttpWebhookSender.render`), for test events.
import { HttpWebhookSender } from "@image-policy/adapters"
import { Event, Id } from "@image-policy/core"
import * as Result from "effect/Result"
import { Webhook } from "standardwebhooks"
import { cpuSeconds, serve } from "./ipc.js"

const id = (kind) => Id.make(kind, crypto.getRandomValues(new Uint8Array(16)))

/** `count` rendered deliveries spread over the destinations' paths, signed now. */
const render = (secrets, count) => {
  const paths = Object.keys(secrets)
  const time = new Date().toISOString()
  const now = Math.floor(Date.now() / 1000)
  return Array.from({ length: count }, (_, i) => {
    const path = paths[i % paths.length]
    const draft = Result.getOrThrow(
      Event.buildEvent("service.webhook.test", { webhook_id: id("webhook"), action: "test", changed_at: time })
    )
    const event = { id: id("event"), type: draft.type, subject: draft.subject, time, correlationId: `bench-${i}`, data: draft.data }
    const attempt = {
      type: "generic",
      endpointUrl: `http://127.0.0.1${path}`,
      signingSecret: secrets[path],
      orgId: "org_bench",
      event,
      publicUrl: "http://127.0.0.1",
      timeoutMs: 10_000
    }
    const rendered = Result.getOrThrow(HttpWebhookSender.render(attempt, now))
    return { path, id: event.id, body: rendered.body, headers: rendered.headers }
  })
}

serve({
  sign: ({ secrets, count, seconds }) => {
    const requests = render(secrets, count)
    const signers = Object.fromEntries(Object.entries(secrets).map(([path, secret]) => [path, new Webhook(secret)]))
    const cpu0 = cpuSeconds()
    const t0 = performance.now()
    let signed = 0
    while (performance.now() - t0 < seconds * 1000) {
      for (let i = 0; i < 200; i++) {
        const r = requests[signed % requests.length]
        signers[r.path].sign(r.id, new Date(), r.body)
        signed++
      }
    }
    return { signed, wallMs: performance.now() - t0, cpu: cpuSeconds() - cpu0 }
  },
  fetch: async ({ secrets, count, concurrency, receiverPort }) => {
    const requests = render(secrets, count)
    const cpu0 = cpuSeconds()
    const t0 = performance.now()
    let next = 0
    let failed = 0
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const r = requests[next++]
        const response = await fetch(`http://127.0.0.1:${receiverPort}${r.path}`, { method: "POST", headers: r.headers, body: r.body })
        await response.arrayBuffer()
        if (response.status !== 204) failed++
      }
    }))
    return { sent: requests.length, failed, wallMs: performance.now() - t0, cpu: cpuSeconds() - cpu0 }
  }
})

process.send({ type: "ready" })
