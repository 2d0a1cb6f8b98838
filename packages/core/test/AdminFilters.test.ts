/**
 * The rules behind issue 15's list filters: the audit trail's filter and its time bounds, the
 * snooze request list's filter, and which deliveries are failing.
 */
import { assert, describe } from "@effect/vitest"
import * as fc from "fast-check"
import * as Audit from "../src/Audit.js"
import * as Id from "../src/Id.js"
import { isIsoDateTime } from "../src/IsoDateTime.js"
import * as Outbox from "../src/Outbox.js"
import * as SnoozeRequest from "../src/SnoozeRequest.js"
import { anyInstantText, auditEvent, auditFilter, snoozeStatus, storedInstant, webhookDelivery } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

describe("Audit filters", () => {
  prop(
    "a bound compares with stored instants as the instants compare (any zone, any year)",
    [anyInstantText, storedInstant],
    ([bound, at]) => {
      assert.isTrue(isIsoDateTime(bound), bound)
      const text = Audit.boundText(bound)
      assert.strictEqual(at >= text, Date.parse(at) >= Date.parse(bound), `${at} vs ${bound} (${text})`)
      assert.strictEqual(at < text, Date.parse(at) < Date.parse(bound), `${at} vs ${bound} (${text})`)
    }
  )

  prop("a row matches a filter exactly when it matches each of its filters alone", [auditFilter, auditEvent], ([filter, event]) => {
    const normalized = Audit.normalizeFilter(filter)
    const each = Object.entries(normalized).every(([key, value]) => Audit.matches({ [key]: value }, event))
    assert.strictEqual(Audit.matches(normalized, event), each)
  })

  prop("the empty filter matches every row; actor matches the key id or the system name", [auditEvent], ([event]) => {
    assert.isTrue(Audit.matches({}, event))
    assert.isTrue(Audit.matches({ actor: Audit.actorName(event.actor) }, event))
    if (event.actor.kind === "apiKey") assert.isFalse(Audit.matches({ actor: event.actor.serviceAccountId }, event))
  })

  prop("from is inclusive and to exclusive", [auditEvent], ([event]) => {
    assert.isTrue(Audit.matches(Audit.normalizeFilter({ from: event.at, to: new Date(Date.parse(event.at) + 1).toISOString() }), event))
    assert.isFalse(Audit.matches(Audit.normalizeFilter({ to: event.at }), event))
  })
})

describe("SnoozeRequest list filter", () => {
  const repositories = [Id.make("repository", new Uint8Array(16).fill(1)), Id.make("repository", new Uint8Array(16).fill(2))] as Array<
    Id.RepositoryId
  >
  const request = (status: SnoozeRequest.SnoozeStatus, repositoryId: Id.RepositoryId): SnoozeRequest.SnoozeRequest => ({
    id: Id.make("snoozeRequest", new Uint8Array(16)) as Id.SnoozeRequestId,
    repositoryId,
    fromImage: "nginx:1",
    reason: "r",
    until: "2030-01-01T00:00:00.000Z",
    status,
    createdAt: "2026-01-01T00:00:00.000Z",
    reviewedAt: null,
    reviewComment: null
  })
  prop(
    "a request matches exactly when its status and repository equal the given ones",
    [
      snoozeStatus,
      fc.constantFrom(...repositories),
      fc.option(snoozeStatus, { nil: undefined }),
      fc.option(fc.constantFrom(...repositories), { nil: undefined })
    ],
    ([status, repositoryId, wantStatus, wantRepository]) => {
      const filter = { ...(wantStatus ? { status: wantStatus } : {}), ...(wantRepository ? { repositoryId: wantRepository } : {}) }
      assert.strictEqual(
        SnoozeRequest.matchesFilter(filter, request(status, repositoryId)),
        (wantStatus === undefined || wantStatus === status) && (wantRepository === undefined || wantRepository === repositoryId)
      )
    }
  )
})

describe("Outbox failing deliveries", () => {
  prop("dead letters are dead; pending after a failed attempt is failed; nothing else is failing", [webhookDelivery], ([d]) => {
    const failing = Outbox.failingStatus(d)
    if (d.status === "dead") assert.strictEqual(failing, "dead")
    else if (d.status === "pending" && d.attempts > 0) assert.strictEqual(failing, "failed")
    else assert.isNull(failing)
    assert.strictEqual(Outbox.matchesFailing({}, d), failing !== null)
    assert.strictEqual(Outbox.matchesFailing({ status: "dead" }, d), failing === "dead")
    assert.strictEqual(Outbox.matchesFailing({ webhookId: d.webhookId }, d), failing !== null)
    assert.isFalse(Outbox.matchesFailing({ webhookId: "wh_other" }, d))
  })

  prop("the keyset key orders as the (updatedAt, eventId, webhookId) triple", [webhookDelivery, webhookDelivery], ([a, b]) => {
    const key = (d: Outbox.WebhookDelivery) => Outbox.failingKey({ updatedAt: d.updatedAt, eventId: d.eventId, destinationId: d.webhookId })
    const [ka, kb] = [key(a), key(b)]
    const tuple = Math.sign(
      a.updatedAt !== b.updatedAt ?
        (a.updatedAt < b.updatedAt ? -1 : 1)
        : a.eventId !== b.eventId ?
        (a.eventId < b.eventId ? -1 : 1)
        : a.webhookId !== b.webhookId
        ? (a.webhookId < b.webhookId ? -1 : 1)
        : 0
    )
    const code = Math.sign(ka[0] !== kb[0] ? (ka[0] < kb[0] ? -1 : 1) : ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0)
    assert.strictEqual(code, tuple)
  })
})
