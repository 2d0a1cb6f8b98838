import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import * as ApiKey from "../src/ApiKey.js"
import * as Id from "../src/Id.js"
import { prop } from "./support/fcProp.js"

const created = new Date("2026-01-01T00:00:00.000Z")
const key = (overrides: Partial<ApiKey.ApiKey> = {}): ApiKey.ApiKey => ({
  id: Id.make("apiKey", new Uint8Array(16)) as Id.ApiKeyId,
  serviceAccountId: Id.make("serviceAccount", new Uint8Array(16)) as Id.ServiceAccountId,
  name: "ci",
  prefix: "ipk_abcdefgh",
  secretHash: "hash",
  role: "Policy Automation",
  permissions: [],
  expiresAt: ApiKey.expiresAt(created, 90),
  revokedAt: null,
  lastUsedAt: null,
  createdAt: created.toISOString(),
  ...overrides
})

const decode = Schema.decodeUnknownResult(ApiKey.ApiKeyCreateRequest)

describe("ApiKey", () => {
  it("accepts the presets, any 1..365 days, and null for unlimited; rejects the rest", () => {
    for (const days of [...ApiKey.expiryPresets, 1, 365, 7, null]) {
      assert.isTrue(Result.isSuccess(decode({ name: "ci", role: "Read Only", expiresInDays: days })), `days ${days}`)
    }
    for (const days of [0, 366, -1, 1.5, "30"]) {
      assert.isTrue(Result.isFailure(decode({ name: "ci", role: "Read Only", expiresInDays: days })), `days ${days}`)
    }
    assert.isTrue(Result.isFailure(decode({ name: "ci", role: "Read Only" })), "expiresInDays is required")
    assert.isTrue(Result.isFailure(decode({ name: "ci", role: "Root", expiresInDays: 30 })), "unknown role")
    assert.isTrue(Result.isFailure(decode({ name: "ci", permissions: [], expiresInDays: 30 })), "empty permission set")
    assert.isTrue(Result.isFailure(decode({ name: "ci", permissions: ["policy:destroy"], expiresInDays: 30 })))
    assert.isTrue(Result.isSuccess(decode({ name: "ci", permissions: ["policy:read"], expiresInDays: 30 })))
  })

  prop("expiry is exactly N days after creation", [fc.integer({ min: 1, max: 365 })], ([days]) => {
    const at = ApiKey.expiresAt(created, days)!
    assert.strictEqual(Date.parse(at) - created.getTime(), days * 86_400_000)
  })

  it("is active until its expiry, expired from then on, and revoked wins over expired", () => {
    const k = key()
    const expiry = Date.parse(k.expiresAt!)
    assert.strictEqual(ApiKey.status(k, expiry - 1), "active")
    assert.strictEqual(ApiKey.status(k, expiry), "expired")
    const revoked = ApiKey.revoke(k, new Date("2026-02-01T00:00:00Z"))
    assert.strictEqual(ApiKey.status(revoked, created.getTime()), "revoked")
    assert.strictEqual(ApiKey.status(revoked, expiry + 1), "revoked")
    assert.strictEqual(ApiKey.status(key({ expiresAt: null }), Date.parse("2100-01-01T00:00:00Z")), "active")
  })

  it("revocation keeps the metadata and the first revocation time", () => {
    const k = key({ lastUsedAt: "2026-01-05T00:00:00.000Z" })
    const once = ApiKey.revoke(k, new Date("2026-02-01T00:00:00Z"))
    const twice = ApiKey.revoke(once, new Date("2026-03-01T00:00:00Z"))
    assert.deepStrictEqual({ ...once, revokedAt: null }, k)
    assert.strictEqual(twice.revokedAt, "2026-02-01T00:00:00.000Z")
  })

  prop("secrets have a fixed shape, and their display prefix is a prefix of the secret", [
    fc.uint8Array({ minLength: 32, maxLength: 32 })
  ], ([bytes]) => {
    const secret = ApiKey.formatSecret(bytes)
    assert.isTrue(ApiKey.looksLikeSecret(secret))
    assert.isTrue(secret.startsWith(ApiKey.secretPrefix(secret)))
    assert.isBelow(ApiKey.secretPrefix(secret).length, secret.length / 4)
  })

  it("views never carry the secret or its hash, and role keys list the role's permissions", () => {
    const view = ApiKey.toView(key(), created.getTime())
    assert.notProperty(view, "secretHash")
    assert.notProperty(view, "secret")
    assert.strictEqual(view.status, "active")
    assert.include(view.permissions, "policy:publish")
  })
})
