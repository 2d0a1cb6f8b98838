import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Permission from "../src/Permission.js"
import * as Role from "../src/Role.js"
import { prop } from "./support/fcProp.js"

const perms = fc.subarray([...Permission.allPermissions])
const builtIn = fc.constantFrom(...Permission.RoleName.literals)
const roleId = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Id.make("role", b) as Id.RoleId)
const custom = fc.record({ id: roleId, name: fc.string({ minLength: 1 }), permissions: perms }).map(
  (r): Role.CustomRole => ({ ...r, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" })
)

describe("Role (issue 15: built-in and custom roles)", () => {
  it("a role reference is a built-in name or a custom role id, never both", () => {
    const decode = Schema.decodeUnknownResult(Role.RoleRef)
    for (const name of Permission.RoleName.literals) {
      assert.isTrue(Result.isSuccess(decode(name)))
      assert.isTrue(Role.isBuiltIn(name))
    }
    assert.isTrue(Result.isSuccess(decode("role_0123456789abcdefghjkmnpqrs")))
    assert.isFalse(Role.isBuiltIn("role_0123456789abcdefghjkmnpqrs" as Role.RoleRef))
    assert.isTrue(Result.isFailure(decode("Admin")))
    assert.isTrue(Result.isFailure(decode("owner")))
  })

  it("built-in roles are listed first with their id = name, read only", () => {
    assert.deepStrictEqual(Role.builtInViews.map((r) => r.id), ["Owner", "Security Administrator", "Policy Automation", "Read Only"])
    for (const view of Role.builtInViews) {
      assert.isTrue(view.builtIn)
      assert.deepStrictEqual(view.permissions, Permission.roles[view.name as Permission.RoleName])
    }
  })

  prop("built-in names are taken whatever their case and surrounding spaces", [builtIn, fc.boolean()], ([name, upper]) => {
    assert.isTrue(Role.isBuiltInName(` ${upper ? name.toUpperCase() : name.toLowerCase()} `))
    assert.strictEqual(Role.nameKey(name.toUpperCase()), Role.nameKey(name))
  })

  prop(
    "a built-in role grants its table's set; a custom role its stored set; a gone one nothing",
    [builtIn, custom, perms],
    ([name, role, explicit]) => {
      assert.deepStrictEqual(Role.permissionsOf(name, explicit, null), Permission.roles[name])
      assert.deepStrictEqual(Role.permissionsOf(role.id, explicit, role), role.permissions)
      assert.deepStrictEqual(Role.permissionsOf(role.id, explicit, null), [])
      assert.deepStrictEqual(Role.permissionsOf(role.id, explicit, { ...role, id: "role_other" as Id.RoleId }), [])
      assert.deepStrictEqual(Role.permissionsOf(null, explicit, role), explicit)
    }
  )

  prop(
    "only Owner or Security Administrator by name pass a role requirement",
    [fc.option(fc.oneof(builtIn, roleId), { nil: null })],
    ([ref]) => {
      const result = Role.requireRole(ref as Role.RoleRef | null, ["Owner", "Security Administrator"])
      assert.strictEqual(Result.isSuccess(result), ref === "Owner" || ref === "Security Administrator")
      assert.isTrue(Result.isSuccess(Role.requireRole(ref as Role.RoleRef | null, [])))
    }
  )

  prop(
    "a grant passes exactly when it is within what the caller holds; `missing` is the rest, in order",
    [perms, perms],
    ([held, granted]) => {
      const result = Role.checkGrantable(held, granted, "permissions")
      const missing = Permission.allPermissions.filter((p) => granted.includes(p) && !held.includes(p))
      assert.strictEqual(Result.isSuccess(result), missing.length === 0)
      if (Result.isFailure(result)) {
        assert.deepStrictEqual(result.failure.missing, missing)
        assert.strictEqual(result.failure.path, "permissions")
      }
    }
  )

  prop("normalized permission sets have no repeats and keep the contracts' order", [
    fc.array(fc.constantFrom(...Permission.allPermissions))
  ], ([list]) => {
    const normalized = Role.normalizePermissions(list)
    assert.deepStrictEqual(normalized, Permission.allPermissions.filter((p) => list.includes(p)))
  })

  prop("pages over the built-in roles: every one exactly once, then none after a custom role's cursor", [
    fc.integer({ min: 0, max: 4 }),
    roleId
  ], ([i, id]) => {
    const first = Role.builtInsAfter(undefined)
    assert.strictEqual(first.length, 4)
    const position = i === 0 ? undefined : { id: first[i - 1]!.id }
    assert.deepStrictEqual(Role.builtInsAfter(position), first.slice(i))
    assert.deepStrictEqual(Role.builtInsAfter({ id }), [])
  })
})
