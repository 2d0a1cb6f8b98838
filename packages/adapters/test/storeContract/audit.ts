/** Storage contract: the audit trail (`AuditStore`). */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { allPages, type Contract, type ContractIt } from "./support.js"

export const audit = (it: ContractIt, { store, newOrg, audit }: Contract) => {
  it.effect("audit events list newest first across pages", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const rows = [1, 2, 3, 4, 5].map((n) => audit(`a${n}`))
      for (const row of rows) yield* store.audit.append(org.id, row)
      const { items, pages } = yield* allPages((p) => store.audit.list(org.id, p), 2)
      assert.deepStrictEqual(items.map((a) => a.action), ["a5", "a4", "a3", "a2", "a1"])
      assert.strictEqual(pages, 3)
      assert.deepStrictEqual(items[0], rows[4])
    }))
}
