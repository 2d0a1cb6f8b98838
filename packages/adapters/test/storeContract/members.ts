/** Storage contract: members and custom roles (`AccessStore.members`, `AccessStore.roles`). */
import { assert } from "@effect/vitest"
import type { Id, Member, Role } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, newId, next, stamp } from "./support.js"

export const members = (it: ContractIt, { apiKey, newOrg, store }: Contract) => {
  const role = (name: string, permissions: Role.CustomRole["permissions"] = ["policy:read"]): Role.CustomRole => {
    const at = stamp()
    return { id: newId("role"), name, permissions, createdAt: at, updatedAt: at }
  }
  const member = (email: string, roleRef: Member.Member["role"] = "Read Only"): Member.Member => {
    const at = stamp()
    return {
      id: newId("member"),
      email,
      name: `Person ${next()}`,
      role: roleRef,
      permissions: [],
      disabled: false,
      createdAt: at,
      updatedAt: at
    }
  }

  it.effect("members: email unique per organization ignoring case; list by creation; update and delete", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const ada = member("Ada@Example.com")
      assert.isTrue(yield* store.members.insert(org.id, ada))
      assert.isFalse(yield* store.members.insert(org.id, member("ada@example.COM")))
      // another organization may have the same address
      const other = yield* newOrg()
      assert.isTrue(yield* store.members.insert(other.id, member("ada@example.com")))
      const bob = member("bob@example.com")
      const cy = member("cy@example.com")
      assert.isTrue(yield* store.members.insert(org.id, bob))
      assert.isTrue(yield* store.members.insert(org.id, cy))
      const { items, pages } = yield* allPages((page) => store.members.list(org.id, page), 2)
      assert.deepStrictEqual(items, [ada, bob, cy])
      assert.strictEqual(pages, 2)
      const disabled = { ...bob, disabled: true, name: "Bob B.", updatedAt: stamp() }
      yield* store.members.update(org.id, disabled)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.members.get(org.id, bob.id)), disabled)
      // scoped: another organization's id reads and changes nothing
      assert.isTrue(Option.isNone(yield* store.members.get(other.id, bob.id)))
      yield* store.members.delete(other.id, bob.id)
      assert.isTrue(Option.isSome(yield* store.members.get(org.id, bob.id)))
      yield* store.members.delete(org.id, bob.id)
      assert.isTrue(Option.isNone(yield* store.members.get(org.id, bob.id)))
      // the address is free again once its member is gone
      assert.isTrue(yield* store.members.insert(org.id, member("BOB@example.com")))
    }))

  it.effect("roles: names unique per organization ignoring case; list by name; rename; delete", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const ops = role("Ops")
      const audit = role("auditors", ["audit:read"])
      assert.isTrue(yield* store.roles.insert(org.id, ops))
      assert.isTrue(yield* store.roles.insert(org.id, audit))
      assert.isFalse(yield* store.roles.insert(org.id, role("OPS")))
      const other = yield* newOrg()
      assert.isTrue(yield* store.roles.insert(other.id, role("Ops")))
      const zed = role("Zed")
      assert.isTrue(yield* store.roles.insert(org.id, zed))
      // by name in code point order ("O" < "Z" < "a"), the same on every store
      const { items } = yield* allPages((page) => store.roles.list(org.id, page), 1)
      assert.deepStrictEqual(items, [ops, zed, audit])
      assert.deepStrictEqual(yield* store.roles.all(org.id), [ops, zed, audit])
      assert.deepStrictEqual(Option.getOrThrow(yield* store.roles.get(org.id, ops.id)), ops)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.roles.lock(org.id, ops.id)), ops)
      assert.isTrue(Option.isNone(yield* store.roles.get(other.id, ops.id)))
      // a rename to a name another role has (ignoring case) writes nothing
      assert.isFalse(yield* store.roles.update(org.id, { ...ops, name: "ZED" }))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.roles.get(org.id, ops.id)), ops)
      // its own name in another case is fine
      const renamed = { ...ops, name: "OPS", permissions: ["policy:read", "audit:read"] as const, updatedAt: stamp() }
      assert.isTrue(yield* store.roles.update(org.id, renamed))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.roles.get(org.id, ops.id)), renamed)
      // the old name is free once renamed away
      const ops2 = role("ops-2")
      assert.isTrue(yield* store.roles.update(org.id, { ...renamed, name: "Platform" }))
      assert.isTrue(yield* store.roles.insert(org.id, { ...ops2, name: "Ops" }))
      // an unknown role is not updated
      assert.isFalse(yield* store.roles.update(org.id, role("Ghost")))
      assert.isTrue(Option.isNone(yield* store.roles.get(org.id, newId<Id.RoleId>("role"))))
      yield* store.roles.delete(org.id, zed.id)
      assert.isTrue(Option.isNone(yield* store.roles.get(org.id, zed.id)))
    }))

  it.effect("roles: usage counts members and active API keys; a key is found with its custom role", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const ops = role("Ops", ["policy:read", "webhooks:manage"])
      yield* store.roles.insert(org.id, ops)
      const now = "2026-06-01T00:00:00.000Z"
      assert.deepStrictEqual(yield* store.roles.usage(org.id, ops.id, now), { members: 0, apiKeys: 0 })
      yield* store.members.insert(org.id, member("a@example.com", ops.id))
      yield* store.members.insert(org.id, { ...member("b@example.com", ops.id), disabled: true })
      yield* store.members.insert(org.id, member("c@example.com"))
      const hash = `h${next()}-${newId("apiKey")}`
      const active = { ...apiKey(hash), role: ops.id }
      yield* store.apiKeys.insert(org.id, active)
      yield* store.apiKeys.insert(org.id, { ...apiKey(`${hash}-r`), role: ops.id, revokedAt: "2026-01-01T00:00:00.000Z" })
      yield* store.apiKeys.insert(org.id, { ...apiKey(`${hash}-e`), role: ops.id, expiresAt: "2026-05-31T00:00:00.000Z" })
      yield* store.apiKeys.insert(org.id, { ...apiKey(`${hash}-l`), role: ops.id, expiresAt: "2026-06-02T00:00:00.000Z" })
      assert.deepStrictEqual(yield* store.roles.usage(org.id, ops.id, now), { members: 2, apiKeys: 2 })
      // another organization sees none of them
      const other = yield* newOrg()
      assert.deepStrictEqual(yield* store.roles.usage(other.id, ops.id, now), { members: 0, apiKeys: 0 })
      const match = Option.getOrThrow(yield* store.apiKeys.findBySecretHash(hash))
      assert.deepStrictEqual(match.customRole, ops)
      // the role as stored now: an edit shows at the next lookup
      const widened = { ...ops, permissions: ["policy:read"] as const, updatedAt: stamp() }
      yield* store.roles.update(org.id, widened)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.apiKeys.findBySecretHash(hash)).customRole, widened)
      // a built-in role names no custom role
      const builtIn = apiKey(`${hash}-b`)
      yield* store.apiKeys.insert(org.id, builtIn)
      assert.isNull(Option.getOrThrow(yield* store.apiKeys.findBySecretHash(`${hash}-b`)).customRole)
    }))

  it.effect("roles and members roll back with their transaction", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const ops = role("Ops")
      const ada = member("ada@example.com")
      const failed = yield* Effect.flip(store.transaction(Effect.gen(function*() {
        yield* store.roles.insert(org.id, ops)
        yield* store.members.insert(org.id, ada)
        return yield* Effect.fail("boom" as const)
      })))
      assert.strictEqual(failed, "boom")
      assert.isTrue(Option.isNone(yield* store.roles.get(org.id, ops.id)))
      assert.isTrue(Option.isNone(yield* store.members.get(org.id, ada.id)))
      assert.isTrue(yield* store.roles.insert(org.id, ops))
      assert.isTrue(yield* store.members.insert(org.id, ada))
    }))
}
