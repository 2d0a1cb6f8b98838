/** Storage contract: webhook destinations (`WebhookStore`). */
import { assert } from "@effect/vitest"
import { Webhook } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Contract, ContractIt } from "./support.js"

export const webhooks = (it: ContractIt, { store, newOrg, webhook }: Contract) => {
  it.effect("webhooks: insert, update, delete", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const w = webhook()
      yield* store.webhooks.insert(org.id, w)
      const disabled = { ...w, status: "disabled" as const, disabledReason: "410 Gone" }
      yield* store.webhooks.update(org.id, disabled)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.webhooks.get(org.id, w.id)), disabled)
      assert.deepStrictEqual(yield* store.webhooks.all(org.id), [disabled])
      yield* store.webhooks.delete(org.id, w.id)
      assert.isTrue(Option.isNone(yield* store.webhooks.get(org.id, w.id)))
    }))

  it.effect("webhooks: a chat destination keeps its platform; one stored without (before platforms existed) reads back without", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const teams = { ...webhook(), type: "chat" as const, chatPlatform: "teams" as const, signingSecretSealed: null }
      const google = { ...webhook(), type: "chat" as const, chatPlatform: "google-chat" as const, signingSecretSealed: null }
      const legacy = { ...webhook(), type: "chat" as const, signingSecretSealed: null }
      for (const w of [teams, google, legacy]) yield* store.webhooks.insert(org.id, w)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.webhooks.get(org.id, teams.id)), teams)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.webhooks.get(org.id, google.id)), google)
      const read = Option.getOrThrow(yield* store.webhooks.get(org.id, legacy.id))
      assert.deepStrictEqual(read, legacy)
      assert.isFalse("chatPlatform" in read)
      assert.strictEqual(Webhook.chatPlatformOf(read), "slack")
      const moved = { ...google, status: "disabled" as const, disabledReason: "410 Gone" }
      yield* store.webhooks.update(org.id, moved)
      assert.deepStrictEqual((yield* store.webhooks.all(org.id)).find((w) => w.id === google.id), moved)
    }))
}
