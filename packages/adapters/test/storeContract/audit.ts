/** Storage contract: the audit trail (`AuditStore`). */
import { assert } from "@effect/vitest"
import { Audit } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { allPages, type Contract, type ContractIt, newId } from "./support.js"

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

  it.effect("audit events: filters by actor, action, resource and time, newest first across pages", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const key = { kind: "apiKey" as const, apiKeyId: newId<any>("apiKey"), serviceAccountId: newId<any>("serviceAccount") }
      const rows: Array<Audit.AuditEvent> = [
        { ...audit("snooze_request.create"), actor: key, resourceType: "snooze_request", resourceId: "snz_1" },
        {
          ...audit("snooze_request.expire"),
          actor: { kind: "system", name: "snooze-expiry" },
          resourceType: "snooze_request",
          resourceId: "snz_1"
        },
        { ...audit("webhook.create"), actor: key, resourceType: "webhook", resourceId: "wh_1" },
        { ...audit("snooze_request.create"), actor: key, resourceType: "snooze_request", resourceId: "snz_2" },
        { ...audit("createWebhook"), actor: key, resourceType: "webhooks", resourceId: null, outcome: "rejected" }
      ]
      for (const row of rows) yield* store.audit.append(org.id, row)
      const newestFirst = [...rows].reverse()
      const filters: Array<Audit.AuditFilter> = [
        {},
        { actor: key.apiKeyId },
        { actor: "snooze-expiry" },
        { action: "snooze_request.create" },
        { resourceType: "snooze_request" },
        { resourceType: "snooze_request", resourceId: "snz_1" },
        { from: rows[1]!.at },
        { to: rows[3]!.at },
        { from: rows[1]!.at, to: rows[3]!.at, actor: key.apiKeyId },
        { actor: key.serviceAccountId },
        { from: "2026-01-01T00:00:00+14:00", to: "9999-12-31T23:59:00-12:00" }
      ]
      for (const filter of filters) {
        const normalized = Audit.normalizeFilter(filter)
        const { items } = yield* allPages((p) => store.audit.list(org.id, p, normalized), 2)
        assert.deepStrictEqual(
          items.map((a) => a.id),
          newestFirst.filter((a) => Audit.matches(normalized, a)).map((a) => a.id),
          JSON.stringify(filter)
        )
      }
      const { items } = yield* allPages((p) => store.audit.list(org.id, p, { actor: key.apiKeyId, resourceType: "snooze_request" }), 1)
      assert.deepStrictEqual(items.map((a) => a.resourceId), ["snz_2", "snz_1"])
      const other = yield* newOrg()
      assert.deepStrictEqual((yield* store.audit.list(other.id, { limit: 10 }, { actor: key.apiKeyId })).items, [])
    }))
}
