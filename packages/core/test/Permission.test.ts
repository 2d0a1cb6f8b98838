import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Permission from "../src/Permission.js"
import { prop } from "./support/fcProp.js"

describe("Permission (contracts section 3)", () => {
  it("roles hold exactly the documented permissions", () => {
    assert.deepStrictEqual([...Permission.roles.Owner].sort(), [...Permission.allPermissions].sort())
    assert.deepStrictEqual(
      [...Permission.roles["Security Administrator"]].sort(),
      Permission.allPermissions.filter((p) => p !== "api-keys:manage" && p !== "members:manage").sort()
    )
    assert.deepStrictEqual([...Permission.roles["Policy Automation"]].sort(), [
      "assignments:manage",
      "mappings:write",
      "policy:publish",
      "policy:read",
      "repositories:manage",
      "repositories:read",
      "teams:read",
      "vcs:read"
    ])
    assert.deepStrictEqual([...Permission.roles["Read Only"]].sort(), [
      "audit:read",
      "exceptions:read",
      "policy:read",
      "reports:read",
      "repositories:read",
      "teams:read",
      "vcs:read"
    ])
  })

  it("a key with only mappings:write cannot publish or manage keys (spec 5.4)", () => {
    const granted = Permission.permissionsOf({ permissions: ["mappings:write"] })
    assert.isTrue(Result.isSuccess(Permission.requirePermissions(granted, ["mappings:write"])))
    const denied = Permission.requirePermissions(granted, ["policy:publish"])
    assert.isTrue(Result.isFailure(denied))
    if (Result.isFailure(denied)) assert.deepStrictEqual(denied.failure.missing, ["policy:publish"])
    assert.isTrue(Result.isFailure(Permission.requirePermissions(granted, ["api-keys:manage"])))
  })

  it("Policy Automation cannot manage webhooks; Security Administrator cannot manage API keys", () => {
    assert.isTrue(Result.isFailure(Permission.requirePermissions(Permission.roles["Policy Automation"], ["webhooks:manage"])))
    assert.isTrue(Result.isSuccess(Permission.requirePermissions(Permission.roles["Security Administrator"], ["webhooks:manage"])))
    assert.isTrue(Result.isFailure(Permission.requirePermissions(Permission.roles["Security Administrator"], ["api-keys:manage"])))
    // granting authority is the Owner's alone (docs/api.md: members and roles)
    assert.isTrue(Result.isFailure(Permission.requirePermissions(Permission.roles["Security Administrator"], ["members:manage"])))
    assert.isTrue(Result.isSuccess(Permission.requirePermissions(Permission.roles.Owner, ["members:manage"])))
  })

  const perms = fc.subarray([...Permission.allPermissions])
  prop("required ⊆ granted exactly when the check passes, and `missing` is required \\ granted", [perms, perms], ([granted, required]) => {
    const result = Permission.requirePermissions(granted, required)
    const missing = required.filter((p) => !granted.includes(p))
    assert.strictEqual(Result.isSuccess(result), missing.length === 0)
    if (Result.isFailure(result)) assert.deepStrictEqual(result.failure.missing, missing)
  })
})
