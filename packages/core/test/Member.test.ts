import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Member from "../src/Member.js"
import * as Permission from "../src/Permission.js"
import type * as Role from "../src/Role.js"
import { prop } from "./support/fcProp.js"

const decodeEmail = Schema.decodeUnknownResult(Member.Email)
const decodeCreate = Schema.decodeUnknownResult(Member.MemberCreateRequest)
const decodeUpdate = Schema.decodeUnknownResult(Member.MemberUpdateRequest)

const base: Member.Member = {
  id: "mbr_0123456789abcdefghjkmnpqrs" as Id.MemberId,
  email: "Ada@Example.com",
  name: "Ada",
  role: "Read Only",
  permissions: [],
  disabled: false,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
}

describe("Member (issue 15)", () => {
  it("emails are validated and trimmed; their key ignores case", () => {
    for (const ok of ["a@b.co", "first.last+tag@mail.example.com", "  ADA@EXAMPLE.COM "]) {
      assert.isTrue(Result.isSuccess(decodeEmail(ok)), ok)
    }
    for (
      const bad of [
        "",
        "ada",
        "ada@",
        "@example.com",
        "ada@example",
        "a b@example.com",
        "ada@exa mple.com",
        "a@@b.co",
        `${"a".repeat(250)}@b.co`
      ]
    ) {
      assert.isTrue(Result.isFailure(decodeEmail(bad)), bad)
    }
    assert.strictEqual(Result.getOrThrow(decodeEmail("  Ada@Example.com ")), "Ada@Example.com")
    assert.strictEqual(Member.emailKey("Ada@Example.COM"), Member.emailKey("ada@example.com"))
  })

  it("a member is created with a role or with permissions, never both", () => {
    assert.isTrue(Result.isSuccess(decodeCreate({ email: "a@b.co", name: "A", role: "Owner" })))
    assert.isTrue(Result.isSuccess(decodeCreate({ email: "a@b.co", name: "A", role: "role_0123456789abcdefghjkmnpqrs" })))
    assert.isTrue(Result.isSuccess(decodeCreate({ email: "a@b.co", name: "A", permissions: ["policy:read"] })))
    assert.isTrue(Result.isFailure(decodeCreate({ email: "a@b.co", name: "A", role: "Owner", permissions: ["policy:read"] })))
    assert.isTrue(Result.isFailure(decodeCreate({ email: "a@b.co", name: "A" })))
    assert.isTrue(Result.isFailure(decodeCreate({ email: "a@b.co", name: "A", permissions: [] })))
    assert.isTrue(Result.isFailure(decodeUpdate({ role: "Owner", permissions: ["policy:read"] })))
    assert.isTrue(Result.isSuccess(decodeUpdate({})))
  })

  const update = fc.record(
    {
      name: fc.string({ minLength: 1, maxLength: 20 }),
      disabled: fc.boolean(),
      access: fc.oneof(
        fc.record({ role: fc.constantFrom<Role.RoleRef>(...Permission.RoleName.literals) }),
        fc.record({ permissions: fc.array(fc.constantFrom(...Permission.allPermissions), { minLength: 1 }) })
      )
    },
    { requiredKeys: [] }
  ).map(({ access, ...rest }) => ({ ...rest, ...(access ?? {}) }) as Member.MemberUpdateRequest)

  prop("an update keeps exactly one access model, and only changes what it names", [update], ([request]) => {
    const after = Member.update(base, request, "2026-02-01T00:00:00.000Z")
    assert.isTrue(after.role === null || after.permissions.length === 0)
    assert.strictEqual(after.email, base.email)
    assert.strictEqual(after.id, base.id)
    assert.strictEqual(after.name, request.name ?? base.name)
    assert.strictEqual(after.disabled, request.disabled ?? base.disabled)
    if (request.role !== undefined) assert.strictEqual(after.role, request.role)
    if (request.permissions !== undefined) assert.deepStrictEqual(after.permissions, [...new Set(request.permissions)])
    if (!Member.changesAccess(request)) assert.isTrue(after.role === base.role && after.permissions === base.permissions)
    const action = Member.auditAction(base, after)
    if (Member.sameState(base, after)) return
    assert.include(["member.update", "member.disable", "member.enable"], action)
    if (action !== "member.update") assert.strictEqual(action, after.disabled ? "member.disable" : "member.enable")
  })

  it("a member's view resolves its custom role as stored now", () => {
    const role: Role.CustomRole = {
      id: "role_0123456789abcdefghjkmnpqrs" as Id.RoleId,
      name: "Ops",
      permissions: ["audit:read"],
      createdAt: base.createdAt,
      updatedAt: base.updatedAt
    }
    const member = { ...base, role: role.id }
    assert.deepStrictEqual(Member.toView(member, new Map([[role.id, role]])).permissions, ["audit:read"])
    assert.deepStrictEqual(Member.toView(member, new Map()).permissions, [])
    assert.deepStrictEqual(Member.toView(base, new Map()).permissions, Permission.roles["Read Only"])
    assert.strictEqual(Member.toView(base, new Map()).role, "Read Only")
    assert.notProperty(Member.toView({ ...base, role: null, permissions: ["audit:read"] }, new Map()), "role")
  })
})
