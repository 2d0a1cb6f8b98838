/**
 * The delivery worker (workers/WebhookDelivery.ts) over a memory store and a stand-in sender: a lane
 * reads its destination once for the deliveries it sends one after another, but a 410 makes it
 * read the destination again, so the lane's next deliveries become dead letters without a request;
 * every attempt is recorded (batched records) with the delivery's state.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@image-policy/adapters"
import { Event, Id, OrganizationStore, OutboxStore, transaction, WebhookSender, WebhookStore, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as App from "../src/App.js"
import * as WebhookDelivery from "../src/workers/WebhookDelivery.js"

const id = <K extends Id.Kind>(kind: K) => Id.make(kind, crypto.getRandomValues(new Uint8Array(16)))

describe("webhook delivery worker", () => {
  it.live("after a 410 the lane's next deliveries of that destination are dead letters, not sent", () =>
    Effect.gen(function*() {
      let sent = 0
      const sender: typeof WebhookSender.Service = {
        send: () => Effect.sync(() => (sent++, { statusCode: 410, retryAfter: undefined, durationMs: 1 })),
        checkEndpoint: () => Effect.void
      }
      const outbox = yield* OutboxStore
      const orgId = id("organization") as Id.OrgId
      yield* (yield* OrganizationStore).organizations.insert({
        id: orgId,
        name: "Worker",
        edition: "enterprise",
        grants: [],
        defaultNotificationTeamId: null,
        cooldownSeconds: 0
      })
      const caller = { orgId, actor: { kind: "system" as const, name: "test" }, correlationId: "test" }
      const hook = yield* Workflows.WebhookDestinations.createWebhook(caller, {
        name: "gone",
        type: "generic",
        endpointUrl: "https://hooks.example.com/gone",
        scope: { kind: "organization" },
        events: ["service.snooze_request.created"]
      }).pipe(Effect.provideService(WebhookSender, sender))
      const time = new Date().toISOString()
      const events = Array.from({ length: 5 }, (_, i) => {
        const draft = Result.getOrThrow(Event.buildEvent("service.webhook.test", { webhook_id: hook.id, action: "test", changed_at: time }))
        return {
          event: { id: id("event"), type: draft.type, subject: draft.subject, time, correlationId: `test-${i}`, data: draft.data },
          destinations: [hook.id]
        }
      })
      yield* transaction(outbox.append(orgId, events))

      const worker = yield* Effect.forkChild(
        WebhookDelivery.run({ ...WebhookDelivery.defaults("http://localhost", "w1"), pollIntervalMs: 10 }).pipe(
          Effect.provideService(WebhookSender, sender)
        )
      )
      // wait for what is asserted: every delivery recorded
      let deliveries = (yield* outbox.deliveries(orgId, hook.id, { limit: 10 })).items
      while (deliveries.some((d) => d.status === "pending")) {
        yield* Effect.sleep("10 millis")
        deliveries = (yield* outbox.deliveries(orgId, hook.id, { limit: 10 })).items
      }
      yield* Fiber.interrupt(worker)

      assert.strictEqual(sent, 1, "one request: the 410")
      assert.deepStrictEqual(deliveries.map((d) => [d.status, d.attempts]), Array.from({ length: 5 }, () => ["dead", 1]))
      const errors = []
      for (const e of events) errors.push((yield* outbox.attempts(orgId, e.event.id, hook.id))[0]?.errorCode ?? null)
      assert.deepStrictEqual(errors, [null, "destination-disabled", "destination-disabled", "destination-disabled", "destination-disabled"])
      const stored = yield* (yield* WebhookStore).get(orgId, hook.id)
      assert.strictEqual(stored._tag === "Some" && stored.value.status, "disabled")
    }).pipe(Effect.provide(App.services(MemoryStore.layer, {}))))
})
