/**
 * Webhook destinations and the delivery policy end to end over the memory store, with a scripted
 * receiver and the test clock: retries follow the schedule and Retry-After, 410 disables, exhausted
 * deliveries become dead letters, a replay keeps the CloudEvent id, rotation replaces the secret.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Attempt, AttemptResult } from "@image-policy/core"
import { Id, SendFailure, WebhookSender, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as AesGcmSecretBox from "../src/crypto/AesGcmSecretBox.js"
import * as MemoryStore from "../src/storage/memory/MemoryStore.js"
import { layerSeeded } from "./support/seededIds.js"
import { allStores } from "./support/stores.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const orgId = id<Id.OrgId>("organization", 7)
const team = id<Id.TeamId>("team", 7)
const caller: Workflows.Caller.Caller = {
  orgId,
  actor: { kind: "apiKey", apiKeyId: id("apiKey", 7), serviceAccountId: id("serviceAccount", 7) },
  correlationId: "req-webhooks"
}

type Scripted = AttemptResult | SendFailure

/** A receiver that answers from a script and remembers every attempt it was handed. */
const scriptedSender = (script: Array<Scripted>, seen: Array<Attempt>) =>
  Layer.succeed(WebhookSender, {
    checkEndpoint: (url) =>
      url.startsWith("https://") ? Effect.void : Effect.die("the scripted sender only accepts https URLs in this test"),
    send: (attempt) =>
      Effect.suspend(() => {
        seen.push(attempt)
        const next = script.shift() ?? { statusCode: 200, retryAfter: undefined, durationMs: 3 }
        return "statusCode" in next ? Effect.succeed(next) : Effect.fail(next)
      })
  })

const answer = (statusCode: number, retryAfter?: string): AttemptResult => ({ statusCode, retryAfter, durationMs: 5 })

const setup = (script: Array<Scripted>, seen: Array<Attempt>) =>
  Layer.mergeAll(
    MemoryStore.layer,
    layerSeeded(11),
    AesGcmSecretBox.layerFromKey(AesGcmSecretBox.generateKey()),
    scriptedSender(script, seen)
  ).pipe(Layer.orDie)

const config = (schedule: ReadonlyArray<number>) => ({
  publicUrl: "https://policy.example.com",
  timeoutMs: 1000,
  schedule
})

const worker = (schedule: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const store = yield* allStores
    const claimed = yield* store.outbox.claim({ worker: "w", now: new Date(yield* TestClockNow), leaseMs: 60_000, limit: 10 })
    for (const c of claimed) yield* Workflows.WebhookDeliveries.deliver(c, config(schedule))
    return claimed.length
  })

const TestClockNow = Clock.currentTimeMillis

const seedOrg = Effect.gen(function*() {
  const store = yield* allStores
  yield* store.organizations.insert({
    id: orgId,
    name: "Hooks",
    edition: "enterprise",
    grants: [],
    defaultNotificationTeamId: team,
    cooldownSeconds: 0
  })
  yield* store.teams.insert(orgId, { id: team, name: "Platform" })
  return yield* Workflows.WebhookDestinations.createWebhook(caller, {
    name: "receiver",
    type: "generic",
    endpointUrl: "https://hooks.example.com/services/T000/B000/abcd1234",
    scope: { kind: "organization" },
    events: ["service.webhook.test"]
  })
})

const deliveryOf = (webhookId: Id.WebhookId) =>
  Effect.flatMap(allStores, (store) => Effect.map(store.outbox.deliveries(orgId, webhookId, { limit: 10 }), (p) => p.items[0]!))

describe("webhook delivery policy", () => {
  it.effect("503 with Retry-After, 429 and a timeout are retried on schedule, then 2xx succeeds with the same event", () => {
    const seen: Array<Attempt> = []
    const script: Array<Scripted> = [answer(503, "100"), answer(429), new SendFailure({ code: "timeout" }), answer(204)]
    return Effect.gen(function*() {
      const hook = yield* seedOrg
      assert.match(hook.signingSecret!, /^whsec_[A-Za-z0-9+/]+=*$/)
      assert.strictEqual(hook.endpointPreview, "https://hooks.example.com/…/1234")
      const { eventId } = yield* Workflows.WebhookDestinations.testWebhook(caller, hook.id)
      assert.strictEqual(yield* worker([5, 30, 120]), 1) // 503, Retry-After 100 s beats the 5 s step
      assert.strictEqual(yield* worker([5, 30, 120]), 0)
      yield* TestClock.adjust("99 seconds")
      assert.strictEqual(yield* worker([5, 30, 120]), 0)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* worker([5, 30, 120]), 1) // 429: 30 s +- 20 %
      yield* TestClock.adjust("23 seconds")
      assert.strictEqual(yield* worker([5, 30, 120]), 0)
      yield* TestClock.adjust("14 seconds")
      assert.strictEqual(yield* worker([5, 30, 120]), 1) // timeout: 120 s +- 20 %
      yield* TestClock.adjust("145 seconds")
      assert.strictEqual(yield* worker([5, 30, 120]), 1) // 204
      const delivery = yield* deliveryOf(hook.id)
      assert.strictEqual(delivery.status, "succeeded")
      assert.strictEqual(delivery.attempts, 4)
      assert.deepStrictEqual(seen.map((a) => a.event.id), [eventId, eventId, eventId, eventId])
      assert.isTrue(seen.every((a) => a.endpointUrl === "https://hooks.example.com/services/T000/B000/abcd1234"))
      const store = yield* allStores
      const attempts = yield* store.outbox.attempts(orgId, eventId, hook.id)
      assert.deepStrictEqual(attempts.map((a) => [a.statusCode, a.outcome, a.errorCode]), [
        [503, "retry", null],
        [429, "retry", null],
        [null, "retry", "timeout"],
        [204, "success", null]
      ])
    }).pipe(Effect.provide(setup(script, seen)))
  })

  it.effect("410 disables the destination; replacing the endpoint re-enables it and the dead letter replays with its id", () => {
    const seen: Array<Attempt> = []
    return Effect.gen(function*() {
      const hook = yield* seedOrg
      const { eventId } = yield* Workflows.WebhookDestinations.testWebhook(caller, hook.id)
      yield* worker([5])
      const store = yield* allStores
      const disabled = Option.getOrThrow(yield* store.webhooks.get(orgId, hook.id))
      assert.strictEqual(disabled.status, "disabled")
      assert.strictEqual((yield* deliveryOf(hook.id)).status, "dead")
      // a later event to the disabled destination is not sent
      const second = yield* Workflows.WebhookDestinations.testWebhook(caller, hook.id)
      yield* worker([5])
      assert.strictEqual(seen.length, 1)
      const replaced = yield* Workflows.WebhookDestinations.replaceWebhookEndpoint(caller, hook.id, {
        endpointUrl: "https://hooks2.example.com/in/xyz9"
      })
      assert.strictEqual(replaced.status, "active")
      yield* Workflows.WebhookDeliveries.replayWebhookDelivery(caller, hook.id, eventId)
      yield* Workflows.WebhookDeliveries.replayWebhookDelivery(caller, hook.id, second.eventId)
      assert.strictEqual(yield* worker([5]), 2)
      assert.deepStrictEqual(seen.slice(1).map((a) => a.event.id).sort(), [eventId, second.eventId].sort())
      assert.isTrue(seen.slice(1).every((a) => a.endpointUrl === "https://hooks2.example.com/in/xyz9"))
      const replayAgain = yield* Effect.flip(Workflows.WebhookDeliveries.replayWebhookDelivery(caller, hook.id, eventId))
      assert.strictEqual(replayAgain._tag, "DeliveryNotDead")
    }).pipe(Effect.provide(setup([answer(410)], seen)))
  })

  it.effect("an exhausted schedule dead-letters; 4xx other than 408/425/429 fails at once", () => {
    const seen: Array<Attempt> = []
    return Effect.gen(function*() {
      const hook = yield* seedOrg
      yield* Workflows.WebhookDestinations.testWebhook(caller, hook.id)
      yield* worker([1, 2])
      yield* TestClock.adjust("2 seconds")
      yield* worker([1, 2])
      yield* TestClock.adjust("3 seconds")
      yield* worker([1, 2])
      assert.strictEqual((yield* deliveryOf(hook.id)).status, "dead")
      assert.strictEqual(seen.length, 3)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(yield* worker([1, 2]), 0)
    }).pipe(Effect.provide(setup([answer(500), answer(502), new SendFailure({ code: "network" })], seen)))
  })

  it.effect("rotation replaces the signing secret for every later attempt; the answer shows it once", () => {
    const seen: Array<Attempt> = []
    return Effect.gen(function*() {
      const hook = yield* seedOrg
      yield* Workflows.WebhookDestinations.testWebhook(caller, hook.id)
      yield* worker([5])
      const rotated = yield* Workflows.WebhookDestinations.rotateWebhookSecret(caller, hook.id)
      assert.notStrictEqual(rotated.signingSecret, hook.signingSecret)
      yield* Workflows.WebhookDestinations.testWebhook(caller, hook.id)
      yield* worker([5])
      assert.deepStrictEqual(seen.map((a) => a.signingSecret), [hook.signingSecret!, rotated.signingSecret])
      const listed = yield* Workflows.WebhookDestinations.listWebhooks(caller, { limit: 10 })
      assert.notInclude(JSON.stringify(listed), "whsec_")
      assert.notInclude(JSON.stringify(listed), "abcd1234")
      const store = yield* allStores
      const audit = yield* store.audit.list(orgId, { limit: 50 })
      assert.notInclude(JSON.stringify(audit), "whsec_")
      assert.notInclude(JSON.stringify(audit), "hooks.example.com")
    }).pipe(Effect.provide(setup([], seen)))
  })
})
