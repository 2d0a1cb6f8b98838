/** Storage contract: webhook destinations (`WebhookStore`). */
import { assert } from "@effect/vitest"
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
}
