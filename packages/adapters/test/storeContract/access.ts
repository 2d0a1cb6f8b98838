/** Storage contract: API keys (`AccessStore`). */
import { assert } from "@effect/vitest"
import type { Organization } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Contract, type ContractIt, randomBytes } from "./support.js"

export const access = (it: ContractIt, { store, newOrg, apiKey }: Contract) => {
  it.effect("API keys: found by hash with their org, revocation keeps metadata", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const hash = `h${randomBytes().join("")}`
      const key = apiKey(hash)
      yield* store.apiKeys.insert(org.id, key)
      const match = Option.getOrThrow(yield* store.apiKeys.findBySecretHash(hash))
      assert.strictEqual(match.orgId, org.id)
      assert.deepStrictEqual(match.key, key)
      assert.deepStrictEqual(match.organization, org)
      assert.isTrue(Option.isNone(yield* store.apiKeys.findBySecretHash("nope")))
      // the organization is read with the key on every lookup: a changed edition counts at once
      const downgraded: Organization.Organization = { ...org, edition: "free", grants: [] }
      yield* store.organizations.insert(downgraded)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.apiKeys.findBySecretHash(hash)).organization, downgraded)
      // another organization's key is found with that organization, never this one
      const other = yield* newOrg()
      const otherHash = `h${randomBytes().join("")}`
      yield* store.apiKeys.insert(other.id, apiKey(otherHash))
      const otherMatch = Option.getOrThrow(yield* store.apiKeys.findBySecretHash(otherHash))
      assert.strictEqual(otherMatch.orgId, other.id)
      assert.deepStrictEqual(otherMatch.organization, other)
      const revoked = { ...key, revokedAt: "2026-02-01T00:00:00.000Z", lastUsedAt: "2026-01-15T00:00:00.000Z" }
      yield* store.apiKeys.update(org.id, revoked)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.apiKeys.get(org.id, key.id)), revoked)
      assert.deepStrictEqual((yield* store.apiKeys.list(org.id, { limit: 10 })).items, [revoked])
    }))

  it.effect("API keys: touch records the latest use and nothing else", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const key = apiKey(`h${randomBytes().join("")}`)
      yield* store.apiKeys.insert(org.id, key)
      const revoked = { ...key, revokedAt: "2026-02-01T00:00:00.000Z" }
      yield* store.apiKeys.update(org.id, revoked)
      yield* store.apiKeys.touch(org.id, key.id, "2026-03-01T00:00:00.000Z")
      yield* store.apiKeys.touch(org.id, key.id, "2026-02-15T00:00:00.000Z")
      assert.deepStrictEqual(
        Option.getOrThrow(yield* store.apiKeys.get(org.id, key.id)),
        { ...revoked, lastUsedAt: "2026-03-01T00:00:00.000Z" }
      )
      // another organization's id changes nothing
      const other = yield* newOrg()
      yield* store.apiKeys.touch(other.id, key.id, "2026-04-01T00:00:00.000Z")
      assert.strictEqual(Option.getOrThrow(yield* store.apiKeys.get(org.id, key.id)).lastUsedAt, "2026-03-01T00:00:00.000Z")
    }))
}
