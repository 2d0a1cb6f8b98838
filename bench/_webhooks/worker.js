// Our side of the webhook benchmark: the host's delivery worker (built packages, started by
// `NodeRuntime.start` with its worker options) over the memory store or PostgreSQL. `setup`
// creates an organization, generic destinations to the receiver (unsafe mode: http on loopback)
// and queues the events straight into the outbox; `start` starts the host and its worker; the
// parent watches the receiver and calls `stop`. Reports this process's CPU seconds.
import { AesGcmSecretBox, MemoryStore, StoreConfig } from "@image-policy/adapters"
import { Event, Id, OrganizationStore, OutboxStore, transaction, Workflows } from "@image-policy/core"
import { App, NodeRuntime } from "@image-policy/host"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Result from "effect/Result"
import { cpuSeconds, serve } from "./ipc.js"

const id = (kind) => Id.make(kind, crypto.getRandomValues(new Uint8Array(16)))
const secretKey = AesGcmSecretBox.generateKey()
const services = { secretKey, allowUnsafeWebhookTargets: true }
let runtime
let stores
let running
let workerOptions

serve({
  setup: async ({ destinations, events, receiverPort, storeUrl, worker }) => {
    const t0 = performance.now()
    workerOptions = worker
    const storeLayer = storeUrl === "memory" ? MemoryStore.layer : StoreConfig.layer({ _tag: "postgres", url: storeUrl })
    runtime = ManagedRuntime.make(App.services(storeLayer, services))
    const run = (effect) => runtime.runPromise(effect)
    // the runtime's services, stores included, shared with the host `start` runs (one memory
    // instance, one pool); the host's own services are built over them again
    stores = await run(Effect.context())
    const { organizations } = Context.get(stores, OrganizationStore)
    const outbox = Context.get(stores, OutboxStore)
    const orgId = id("organization")
    await run(organizations.insert({
      id: orgId,
      name: "Bench",
      edition: "enterprise",
      grants: [],
      defaultNotificationTeamId: null,
      cooldownSeconds: 0
    }))
    const caller = { orgId, actor: { kind: "system", name: "bench" }, correlationId: "bench" }
    const secrets = {}
    const hooks = []
    for (let i = 0; i < destinations; i++) {
      const path = `/hook/${i}`
      const created = await run(Workflows.WebhookDestinations.createWebhook(caller, {
        name: `bench ${i}`,
        type: "generic",
        endpointUrl: `http://127.0.0.1:${receiverPort}${path}`,
        scope: { kind: "organization" },
        events: ["service.snooze_request.created"]
      }))
      secrets[path] = created.signingSecret
      hooks.push(created.id)
    }
    // the same rows `WebhookDestinations.testWebhook` writes, appended in chunks (one transaction each)
    const time = new Date().toISOString()
    const rows = Array.from({ length: events }, (_, i) => {
      const webhookId = hooks[i % destinations]
      const draft = Result.getOrThrow(Event.buildEvent("service.webhook.test", { webhook_id: webhookId, action: "test", changed_at: time }))
      return {
        event: { id: id("event"), type: draft.type, subject: draft.subject, time, correlationId: `bench-${i}`, data: draft.data },
        destinations: [webhookId]
      }
    })
    for (let i = 0; i < rows.length; i += 500) {
      await run(transaction(outbox.append(orgId, rows.slice(i, i + 500))))
    }
    return { secrets, seedMs: performance.now() - t0 }
  },
  start: async () => {
    const cpu = cpuSeconds()
    running = await NodeRuntime.start({
      port: 0,
      host: "127.0.0.1",
      store: Layer.succeedContext(stores),
      app: { ...App.defaults, accessLog: false, rateLimit: null },
      services,
      logLevel: "Warn",
      // the delivery worker only: no other background work in this process
      syncWorker: false,
      deliveryWorker: workerOptions
    })
    return { cpu }
  },
  stop: async () => {
    const cpu = cpuSeconds()
    await running?.stop()
    await runtime?.dispose()
    running = undefined
    runtime = undefined
    return { cpu }
  },
  cpu: () => ({ cpu: cpuSeconds() })
})

process.send({ type: "ready" })
