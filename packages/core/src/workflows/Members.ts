/**
 * Members of an organization (issue 15): list, read, add, edit (name, access, `disabled`) and
 * remove. A member holds a built-in or custom role, or an explicit permission set, as an API key
 * does; nobody grants a member more than they hold. `DELETE` removes the member (its email goes
 * with it); `PATCH { disabled: true }` keeps it, unable to act, for audit.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { MemberId, OrgId } from "../Id.js"
import * as Input from "../Input.js"
import * as Member from "../Member.js"
import { type PageRequest, readAll } from "../Page.js"
import type { Permission } from "../Permission.js"
import { AccessStore } from "../ports/AccessStore.js"
import { Ids } from "../ports/Ids.js"
import { transaction } from "../ports/Transaction.js"
import * as Role from "../Role.js"
import { audit, type Caller, now } from "./Caller.js"
import { roleInBody } from "./RoleAccess.js"
import type { Grantor } from "./Roles.js"
import { generatePassword, setPassword } from "./Sessions.js"

/** The organization's custom roles by id, to show what members holding them may do. */
const customRoles = (caller: Caller) =>
  AccessStore.use(({ roles }) => Effect.map(roles.all(caller.orgId), (all) => new Map(all.map((r) => [r.id as string, r]))))

const viewOf = (caller: Caller, member: Member.Member) => Effect.map(customRoles(caller), (roles) => Member.toView(member, roles))

/**
 * The organization's member with this email, whatever its case (the sign-in name); read page by page,
 * for the command line and the demo's start, not for requests.
 */
export const findMemberByEmail = (orgId: OrgId, email: string): Effect.Effect<Option.Option<Member.Member>, never, AccessStore> =>
  Effect.map(
    readAll((page) => AccessStore.use(({ members }) => members.list(orgId, page))),
    (all) => Option.fromUndefinedOr(all.find((m) => Member.emailKey(m.email) === Member.emailKey(email)))
  )

const loadMember = (caller: Caller, memberId: MemberId) =>
  AccessStore.use(({ members }) =>
    Effect.flatMap(
      members.get(caller.orgId, memberId),
      Option.match({
        onNone: () => Effect.fail(new Member.MemberNotFound({ memberId })),
        onSome: Effect.succeed
      })
    )
  )

/** What a body's access fields grant (inside the caller's transaction: a named custom role is locked). */
const grantedBy = (caller: Grantor, access: { readonly role?: Role.RoleRef; readonly permissions?: ReadonlyArray<Permission> }) =>
  Effect.gen(function*() {
    const permissions = access.role !== undefined
      ? (yield* roleInBody(caller, access.role, "role")).permissions
      : access.permissions ?? []
    yield* Effect.fromResult(Role.checkGrantable(caller.permissions, permissions, access.role !== undefined ? "role" : "permissions"))
  })

export const listMembers = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const { members } = yield* AccessStore
  const result = yield* members.list(caller.orgId, page)
  const roles = yield* customRoles(caller)
  return { items: result.items.map((m) => Member.toView(m, roles)), nextCursor: result.nextCursor }
})

export const getMember = Effect.fnUntraced(function*(caller: Caller, memberId: MemberId) {
  return yield* viewOf(caller, yield* loadMember(caller, memberId))
})

export const createMember = Effect.fnUntraced(function*(caller: Grantor, request: Member.MemberCreateRequest) {
  yield* Input.validate(Member.MemberCreateRequest, request)
  const { members } = yield* AccessStore
  const ids = yield* Ids
  const at = (yield* now).toISOString()
  const member: Member.Member = {
    id: yield* ids.next("member"),
    email: request.email,
    name: request.name,
    role: "role" in request ? request.role : null,
    permissions: "permissions" in request ? [...new Set(request.permissions)] : [],
    disabled: false,
    createdAt: at,
    updatedAt: at
  }
  yield* transaction(Effect.gen(function*() {
    yield* grantedBy(caller, request)
    if (!(yield* members.insert(caller.orgId, member))) return yield* new Member.MemberEmailTaken()
    yield* audit(caller, "member.create", "member", member.id)
  }))
  return yield* viewOf(caller, member)
})

export const updateMember = Effect.fnUntraced(function*(caller: Grantor, memberId: MemberId, request: Member.MemberUpdateRequest) {
  yield* Input.validate(Member.MemberUpdateRequest, request)
  const { members } = yield* AccessStore
  const updated = yield* transaction(Effect.gen(function*() {
    const current = yield* loadMember(caller, memberId)
    if (Member.changesAccess(request)) yield* grantedBy(caller, request)
    const next = Member.update(current, request, (yield* now).toISOString())
    if (Member.sameState(current, next)) return current
    yield* members.update(caller.orgId, next)
    yield* audit(caller, Member.auditAction(current, next), "member", memberId)
    return next
  }))
  return yield* viewOf(caller, updated)
})

/**
 * POST /members/{id}/password: a new generated password for the member, answered once (the store
 * keeps its KDF hash); every session of the member ends (`Sessions.setPassword`). Taking over an
 * account is holding its permissions, so the caller must hold every permission the member holds,
 * as for granting them (403 otherwise).
 */
export const resetPassword = Effect.fnUntraced(function*(caller: Grantor, memberId: MemberId) {
  const member = yield* loadMember(caller, memberId)
  const custom = member.role === null ? undefined : (yield* customRoles(caller)).get(member.role)
  yield* Effect.fromResult(Role.checkGrantable(caller.permissions, Role.permissionsOf(member.role, member.permissions, custom), "memberId"))
  const password = yield* generatePassword
  yield* setPassword(caller, memberId, password)
  return { password }
})

export const deleteMember = Effect.fnUntraced(function*(caller: Caller, memberId: MemberId) {
  const { members } = yield* AccessStore
  yield* transaction(Effect.gen(function*() {
    yield* loadMember(caller, memberId)
    yield* members.delete(caller.orgId, memberId)
    yield* audit(caller, "member.delete", "member", memberId)
  }))
})
