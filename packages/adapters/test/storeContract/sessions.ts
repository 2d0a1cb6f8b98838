/** Storage contract: members' passwords and browser sessions (`SessionStore`, issue 17). */
import { assert } from "@effect/vitest"
import type { Id, Member, Session } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Contract, type ContractIt, newId, next, stamp } from "./support.js"

export const sessions = (it: ContractIt, { newOrg, store }: Contract) => {
  const member = (email: string, overrides: Partial<Member.Member> = {}): Member.Member => {
    const at = stamp()
    return {
      id: newId("member"),
      email,
      name: `Person ${next()}`,
      role: "Read Only",
      permissions: [],
      disabled: false,
      createdAt: at,
      updatedAt: at,
      ...overrides
    }
  }
  const session = (
    memberId: Id.MemberId,
    at = "2026-03-01T10:00:00.000Z",
    expiresAt = "2026-03-08T10:00:00.000Z"
  ): Session.StoredSession => ({
    id: newId("session"),
    memberId,
    tokenHash: `${next()}`.padStart(64, "a"),
    createdAt: at,
    expiresAt,
    lastSeenAt: at
  })

  it.effect("credentials: set, replace, found by email key across organizations in membership order; none for unknown members", () =>
    Effect.gen(function*() {
      const a = yield* newOrg()
      const b = yield* newOrg()
      const email = `pat${next()}@example.com`
      const first = member(email.toUpperCase())
      const second = member(email)
      assert.isTrue(yield* store.members.insert(a.id, first))
      assert.isTrue(yield* store.members.insert(b.id, second))
      assert.deepStrictEqual(yield* store.sessions.credentials.findByEmail(email), [])
      yield* store.sessions.credentials.set(b.id, second.id, "$scrypt$b", stamp())
      yield* store.sessions.credentials.set(a.id, first.id, "$scrypt$old", stamp())
      yield* store.sessions.credentials.set(a.id, first.id, "$scrypt$a", stamp())
      // another organization's member id, or one that does not exist, gets nothing
      yield* store.sessions.credentials.set(b.id, first.id, "$scrypt$x", stamp())
      yield* store.sessions.credentials.set(a.id, newId("member"), "$scrypt$y", stamp())
      assert.isTrue(yield* store.sessions.credentials.has(a.id, first.id))
      assert.isFalse(yield* store.sessions.credentials.has(b.id, first.id))
      const found = yield* store.sessions.credentials.findByEmail(email)
      assert.deepStrictEqual(found.map((f) => [f.orgId, f.member.id, f.passwordHash]), [[a.id, first.id, "$scrypt$a"], [
        b.id,
        second.id,
        "$scrypt$b"
      ]])
      assert.strictEqual(found[0]!.organization.id, a.id)
      assert.isNull(found[0]!.customRole)
      // the key is the lower-cased email: the caller computes it (Member.emailKey)
      assert.deepStrictEqual(yield* store.sessions.credentials.findByEmail(email.toUpperCase()), [])
    }))

  it.effect("sessions: found by token hash with member and organization; touch only moves forward; delete, per member, prune", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const role = {
        id: newId<Id.RoleId>("role"),
        name: `R${next()}`,
        permissions: ["audit:read" as const],
        createdAt: stamp(),
        updatedAt: stamp()
      }
      assert.isTrue(yield* store.roles.insert(org.id, role))
      const m = member(`s${next()}@example.com`, { role: role.id })
      assert.isTrue(yield* store.members.insert(org.id, m))
      const s1 = session(m.id)
      const s2 = session(m.id, "2026-03-01T11:00:00.000Z")
      yield* store.sessions.insert(org.id, s1)
      yield* store.sessions.insert(org.id, s2)
      const found = Option.getOrThrow(yield* store.sessions.findByTokenHash(s1.tokenHash))
      assert.deepStrictEqual(found.session, s1)
      assert.strictEqual(found.orgId, org.id)
      assert.deepStrictEqual(found.member, m)
      assert.deepStrictEqual(found.customRole, role)
      assert.strictEqual(found.organization.id, org.id)
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash("f".repeat(64))))
      yield* store.sessions.touch(org.id, s1.id, "2026-03-01T12:00:00.000Z")
      yield* store.sessions.touch(org.id, s1.id, "2026-03-01T11:30:00.000Z")
      assert.strictEqual(
        Option.getOrThrow(yield* store.sessions.findByTokenHash(s1.tokenHash)).session.lastSeenAt,
        "2026-03-01T12:00:00.000Z"
      )
      // scoped: another organization's id changes nothing
      const other = yield* newOrg()
      yield* store.sessions.delete(other.id, s1.id)
      assert.isTrue(Option.isSome(yield* store.sessions.findByTokenHash(s1.tokenHash)))
      yield* store.sessions.delete(org.id, s1.id)
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash(s1.tokenHash)))
      // prune: the absolute end reached, or last use at or before the idle bound
      const old = session(m.id, "2026-03-01T08:00:00.000Z")
      const expired = session(m.id, "2026-03-01T11:00:00.000Z", "2026-03-01T11:30:00.000Z")
      yield* store.sessions.insert(org.id, old)
      yield* store.sessions.insert(org.id, expired)
      yield* store.sessions.prune(org.id, m.id, "2026-03-01T11:30:00.000Z", "2026-03-01T09:00:00.000Z")
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash(old.tokenHash)))
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash(expired.tokenHash)))
      assert.isTrue(Option.isSome(yield* store.sessions.findByTokenHash(s2.tokenHash)))
      yield* store.sessions.deleteForMember(org.id, m.id)
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash(s2.tokenHash)))
    }))

  it.effect("removing a member removes its password and sessions; a disabled member's session is still found (the workflow refuses it)", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const email = `gone${next()}@example.com`
      const m = member(email)
      assert.isTrue(yield* store.members.insert(org.id, m))
      yield* store.sessions.credentials.set(org.id, m.id, "$scrypt$z", stamp())
      const s = session(m.id)
      yield* store.sessions.insert(org.id, s)
      yield* store.members.update(org.id, { ...m, disabled: true })
      assert.isTrue(Option.getOrThrow(yield* store.sessions.findByTokenHash(s.tokenHash)).member.disabled)
      yield* store.members.delete(org.id, m.id)
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash(s.tokenHash)))
      assert.isFalse(yield* store.sessions.credentials.has(org.id, m.id))
      assert.deepStrictEqual(yield* store.sessions.credentials.findByEmail(email), [])
      // a new member with the same email starts without a password
      const again = member(email)
      assert.isTrue(yield* store.members.insert(org.id, again))
      assert.isFalse(yield* store.sessions.credentials.has(org.id, again.id))
    }))

  it.effect("a session write rolls back with its transaction", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const m = member(`tx${next()}@example.com`)
      assert.isTrue(yield* store.members.insert(org.id, m))
      const s = session(m.id)
      yield* Effect.flip(store.transaction(Effect.andThen(store.sessions.insert(org.id, s), Effect.fail("boom"))))
      assert.isTrue(Option.isNone(yield* store.sessions.findByTokenHash(s.tokenHash)))
    }))
}
