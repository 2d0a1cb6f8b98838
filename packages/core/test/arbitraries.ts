/**
 * The fast-check arbitraries that more than one test builds, named after what they make. Property
 * tests import them from here and register through `support/fcProp.ts`; the adapters' tests reach
 * them through their own `test/arbitraries.ts`.
 */
import * as fc from "fast-check"
import type * as Audit from "../src/Audit.js"
import type * as Mapping from "../src/Mapping.js"
import type * as Outbox from "../src/Outbox.js"
import type * as SnoozeRequest from "../src/SnoozeRequest.js"

// text ------------------------------------------------------------------------------------------

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit))

/** Text of any UTF-16 code units, NUL and lone surrogates included (what a JSON string can carry). */
export const codeUnitText = (options: { readonly maxLength?: number } = {}) => fc.string({ unit: codeUnit, ...options })

// time ------------------------------------------------------------------------------------------

const from = Date.parse("2020-01-01T00:00:00Z")
const to = Date.parse("2030-01-01T00:00:00Z")

/** A moment between 2020 and 2030, in epoch milliseconds. */
export const epochMillis = fc.integer({ min: from, max: to })

/** A moment between 2020 and 2030 as ISO 8601 text with milliseconds, as stored and sent. */
export const isoTimestamp = fc.date({ min: new Date(from), max: new Date(to), noInvalidDate: true }).map((d) => d.toISOString())

// repositories ----------------------------------------------------------------------------------

/** A git commit or blob id: 40 lowercase hex digits, as providers report a version. */
export const commitSha = fc.stringMatching(/^[0-9a-f]{40}$/)

/** A branch name: a lowercase letter, then up to ten letters, digits or dashes. */
export const branchName = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/)

// images and mappings ---------------------------------------------------------------------------

/**
 * An image reference as users write it in manifests: Docker Hub short names, library paths, other
 * registries with and without a port, tags and digests.
 */
export const imageLiteral = fc.tuple(
  fc.constantFrom("nginx", "library/redis", "ghcr.io/acme/api", "localhost:5000/x", "quay.io/a/b/c", "node"),
  fc.constantFrom("", ":1", ":1.2-alpine", `@sha256:${"c".repeat(64)}`, ":20-bookworm")
).map(([repository, suffix]) => `${repository}${suffix}`)

/** A platform a mapping is scoped to. */
export const platformScope = fc.constantFrom("linux/amd64", "linux/arm64")

/** One entry of a mappings file as a user writes it: exact and wildcard sources, optional fields left out. */
export const mappingsFileEntry = fc.record({
  fromImage: fc.constantFrom("nginx:1", "redis:*", "node:20-*", "ghcr.io/acme/*:1", "alpine:3.19", "python"),
  toImage: fc.constantFrom("nginx:1.27", "redis:7.2", "node:20.11-alpine", "alpine:3.20"),
  reason: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
  platformScope: fc.option(platformScope, { nil: undefined }),
  order: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  bypassCooldown: fc.option(fc.boolean(), { nil: undefined })
}).map((entry) => Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as Mapping.MappingInput)

/** The entries of a valid mappings file: no two share a source image and platform scope. */
export const mappingsFileEntries = fc.uniqueArray(mappingsFileEntry, {
  selector: (entry) => `${entry.fromImage}|${entry.platformScope ?? ""}`,
  maxLength: 8
})

// audit rows, snooze requests and deliveries ----------------------------------------------------

const minMs = Date.parse("1990-01-01T00:00:00.000Z")
const maxMs = Date.parse("2100-01-01T00:00:00.000Z")

/** An instant as rows store it (`toISOString`). */
export const storedInstant = fc.integer({ min: minMs, max: maxMs }).map((ms) => new Date(ms).toISOString())

/**
 * Any date-time a request can write (years 0000..9999 as written, any zone offset), so also the
 * instants that fall just outside years 0..9999 in UTC.
 */
export const anyInstantText = fc.tuple(
  fc.integer({ min: Date.parse("0000-01-01T00:00:00.000Z"), max: Date.parse("9999-12-31T23:59:59.999Z") }),
  fc.integer({ min: -14, max: 14 })
)
  .map(([local, hours]) => {
    // `local` is the wall-clock time as written; the instant is that time minus the offset
    const shifted = new Date(local).toISOString().replace(/Z$/, "")
    const sign = hours < 0 ? "-" : "+"
    return `${shifted}${sign}${String(Math.abs(hours)).padStart(2, "0")}:00`
  })

const name = fc.constantFrom("a", "b", "c")

export const auditEvent: fc.Arbitrary<Audit.AuditEvent> = fc.record({
  id: fc.constantFrom("aud_1", "aud_2", "aud_3") as fc.Arbitrary<any>,
  at: storedInstant,
  actor: fc.oneof(
    fc.record({
      kind: fc.constant("apiKey" as const),
      apiKeyId: fc.constantFrom("key_a", "key_b") as fc.Arbitrary<any>,
      serviceAccountId: fc.constant("sa_a") as fc.Arbitrary<any>
    }),
    fc.record({ kind: fc.constant("system" as const), name: fc.constantFrom("key_a", "snooze-expiry") })
  ),
  action: name,
  resourceType: name,
  resourceId: fc.option(name, { nil: null }),
  outcome: fc.constantFrom("success" as const, "rejected" as const),
  detail: fc.constant(null)
})

export const auditFilter: fc.Arbitrary<Audit.AuditFilter> = fc.record({
  actor: fc.constantFrom("key_a", "key_b", "snooze-expiry"),
  action: name,
  resourceType: name,
  resourceId: name,
  from: storedInstant,
  to: storedInstant
}, { requiredKeys: [] })

export const snoozeStatus = fc.constantFrom<SnoozeRequest.SnoozeStatus>("pending", "approved", "rejected", "expired")

export const webhookDelivery: fc.Arbitrary<Outbox.WebhookDelivery> = fc.record({
  eventId: fc.constantFrom("evt_1", "evt_2") as fc.Arbitrary<any>,
  webhookId: fc.constantFrom("wh_1", "wh_2") as fc.Arbitrary<any>,
  status: fc.constantFrom<Outbox.WebhookDeliveryStatus>("pending", "succeeded", "dead", "cancelled"),
  attempts: fc.nat({ max: 9 }),
  nextAttemptAt: fc.option(storedInstant, { nil: null }),
  lastStatusCode: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
  updatedAt: storedInstant
})
