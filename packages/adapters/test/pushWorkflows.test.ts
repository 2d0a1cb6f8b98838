/**
 * Provider pushes after the edge verified them (core `Workflows.PushEvents.receive`) over the
 * memory store and the per-process replay memory (`MemoryPushDeliveryIds`): a GitHub delivery
 * must name its id, a stale push or merge is refused without its id being recorded, a delivery id
 * is refused again inside the window and per connection, other events are acknowledged.
 */
import { assert, describe, it } from "@effect/vitest"
import { Id, PushDeliveryIds, type VcsConnection, VcsProvider, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"
import * as RandomIds from "../src/crypto/RandomIds.js"
import * as MemoryStore from "../src/storage/memory/MemoryStore.js"
import * as MemoryPushDeliveryIds from "../src/vcs/MemoryPushDeliveryIds.js"

const { PushEvents } = Workflows

describe("MemoryPushDeliveryIds", () => {
  it.effect("remembers an id for its window; a replay inside it is refused and does not extend it", () =>
    Effect.gen(function*() {
      const ids = MemoryPushDeliveryIds.make()
      assert.isTrue(yield* ids.remember("c|d-1", 0, 100))
      assert.isFalse(yield* ids.remember("c|d-1", 50, 100))
      assert.isFalse(yield* ids.remember("c|d-1", 99, 100))
      assert.isTrue(yield* ids.remember("c|d-1", 100, 100))
      assert.isFalse(yield* ids.remember("c|d-1", 150, 100))
      assert.isTrue(yield* ids.remember("c|d-2", 150, 100))
    }))

  it.effect("holds at most `capacity` ids, forgetting the oldest first", () =>
    Effect.gen(function*() {
      const ids = MemoryPushDeliveryIds.make(3)
      for (const key of ["a", "b", "c", "d"]) assert.isTrue(yield* ids.remember(key, 0, 1_000))
      // "a" was forgotten to make room for "d"; "d" is still remembered
      assert.isFalse(yield* ids.remember("d", 1, 1_000))
      assert.isTrue(yield* ids.remember("a", 1, 1_000))
    }))

  it.effect("each build of the layer has its own memory", () =>
    Effect.gen(function*() {
      const first = yield* Effect.provide(PushDeliveryIds, MemoryPushDeliveryIds.layer())
      const second = yield* Effect.provide(PushDeliveryIds, MemoryPushDeliveryIds.layer())
      assert.isTrue(yield* first.remember("k", 0, 100))
      assert.isTrue(yield* second.remember("k", 0, 100))
      assert.isFalse(yield* first.remember("k", 1, 100))
    }))
})

const connection = (n: number, provider: VcsConnection.VcsProvider = "github"): VcsConnection.VcsConnection => ({
  id: Schema.decodeSync(Id.VcsConnectionId)(Id.make("vcsConnection", new Uint8Array(16).fill(n))),
  provider,
  externalAccountName: "acme",
  status: "active"
})
const orgId = Schema.decodeSync(Id.OrgId)("org_acme")
const push = (pushedAt: number | undefined): Workflows.PushEvents.ReceivedPush => ({
  push: { repositoryFullName: "acme/policies", ref: "refs/heads/main", changedPaths: ["service-mappings.json"] },
  pushedAt
})
const delivery = (overrides: Partial<Workflows.PushEvents.PushDelivery> = {}): Workflows.PushEvents.PushDelivery => ({
  orgId,
  connection: connection(1),
  deliveryId: "d-1",
  idRequired: true,
  push: push(undefined),
  ...overrides
})

// no phase is synced here: a provider call would fail the test as an unimplemented mock
const layer = Layer.mergeAll(MemoryStore.layer, MemoryPushDeliveryIds.layer(), RandomIds.layer, Layer.mock(VcsProvider)({}))
const none = { synced: [], merged: [] }
const receive = (d: Workflows.PushEvents.PushDelivery) => PushEvents.receive(d, "corr-1")
const refusal = (d: Workflows.PushEvents.PushDelivery) => Effect.map(Effect.flip(receive(d)), (error) => error._tag)

describe("PushEvents.receive", () => {
  it.effect("a fresh push is synced (no external phase here: nothing to sync)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* receive(delivery()), none)
    }).pipe(Effect.provide(layer)))

  it.effect("a delivery that must name its id and does not is a replay; one that need not is accepted every time", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* refusal(delivery({ deliveryId: undefined })), "PushReplayed")
      assert.strictEqual(yield* refusal(delivery({ deliveryId: undefined, push: undefined })), "PushReplayed")
      const gitlab = delivery({ connection: connection(2, "gitlab"), deliveryId: undefined, idRequired: false })
      assert.deepStrictEqual(yield* receive(gitlab), none)
      assert.deepStrictEqual(yield* receive(gitlab), none)
    }).pipe(Effect.provide(layer)))

  it.effect("the same delivery id on the same connection is refused for 10 minutes; on another connection it is another delivery", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_000_000)
      assert.deepStrictEqual(yield* receive(delivery()), none)
      yield* TestClock.adjust(PushEvents.replayWindowMs - 1)
      assert.strictEqual(yield* refusal(delivery()), "PushReplayed")
      assert.deepStrictEqual(yield* receive(delivery({ connection: connection(3) })), none)
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* receive(delivery()), none)
    }).pipe(Effect.provide(layer)))

  it.effect("other events are acknowledged, and their ids remembered", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* receive(delivery({ deliveryId: "ping-1", push: undefined })), none)
      assert.strictEqual(yield* refusal(delivery({ deliveryId: "ping-1", push: undefined })), "PushReplayed")
    }).pipe(Effect.provide(layer)))

  it.effect("a push older than 5 minutes is stale, checked before replay, and its id is not recorded", () =>
    Effect.gen(function*() {
      const now = 10_000_000
      yield* TestClock.setTime(now)
      assert.strictEqual(yield* refusal(delivery({ deliveryId: "d-9", push: push(now - 5 * 60_000 - 1) })), "PushStale")
      assert.deepStrictEqual(yield* receive(delivery({ deliveryId: "d-9", push: push(now - 5 * 60_000) })), none)
      // a replay of a stale push answers stale
      assert.strictEqual(yield* refusal(delivery({ deliveryId: "d-9", push: push(0) })), "PushStale")
    }).pipe(Effect.provide(layer)))

  it.effect("a merge is held to the same rules: older than 5 minutes is stale, a replay is refused; one of an untracked repository changes nothing", () =>
    Effect.gen(function*() {
      const now = 20_000_000
      yield* TestClock.setTime(now)
      const merge = (mergedAt: number | undefined): Workflows.PushEvents.ReceivedMerge => ({
        repositoryFullName: "acme/api",
        number: 7,
        mergedAt
      })
      const merging = (deliveryId: string, mergedAt: number | undefined) =>
        delivery({ deliveryId, push: undefined, merge: merge(mergedAt) })
      assert.strictEqual(yield* refusal(merging("m-1", now - 5 * 60_000 - 1)), "PushStale")
      assert.deepStrictEqual(yield* receive(merging("m-1", now - 5 * 60_000)), none)
      assert.strictEqual(yield* refusal(merging("m-1", now)), "PushReplayed")
      // no merge time: dated on receipt, never stale
      assert.deepStrictEqual(yield* receive(merging("m-2", undefined)), none)
    }).pipe(Effect.provide(layer)))
})
