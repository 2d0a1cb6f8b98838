/**
 * A seed's custom `roles` and `users` (members), on a new organization and on `seed --update`
 * alike, through the members' and roles' workflows (their rules, audit rows as `seed`): a role is
 * matched by name, a member by email (ignoring case); what is missing is created, what differs from
 * the seed is changed, nothing else is touched. A user's `password` (for tests and demos) is hashed
 * with the KDF and set when the member has none yet: `seed --update` never resets a password a
 * member changed since (`image-policy users set-password` does that).
 */
import { AccessStore, type Member, readAllPages, SessionStore, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { samePermissions } from "./Rows.js"
import { at, type SeedOrganization } from "./SeedFile.js"

export const applyAccess = Effect.fnUntraced(function*(caller: Workflows.Roles.Grantor, org: SeedOrganization, path: string) {
  const { members, roles } = yield* AccessStore
  const existingRoles = new Map((yield* roles.all(caller.orgId)).map((r) => [r.name, r]))
  const roleIds: Record<string, string> = {}
  for (const [i, r] of org.roles.entries()) {
    const current = existingRoles.get(r.name)
    if (current === undefined) {
      roleIds[r.name] = (yield* Workflows.Roles.createRole(caller, r).pipe(at(`${path}.roles[${i}]`))).id
      continue
    }
    roleIds[r.name] = current.id
    if (!samePermissions(current.permissions, r.permissions)) {
      yield* Workflows.Roles.updateRole(caller, current.id, { permissions: r.permissions }).pipe(at(`${path}.roles[${i}]`))
    }
  }
  const byEmail = new Map((yield* readAllPages((page) => members.list(caller.orgId, page))).map((m) => [m.email.toLowerCase(), m]))
  const memberIds: Record<string, string> = {}
  const sessions = yield* SessionStore
  const setPassword = (memberId: string, password: string | undefined, path: string) =>
    Effect.gen(function*() {
      if (password === undefined || (yield* sessions.credentials.has(caller.orgId, memberId as Member.Member["id"]))) return
      yield* Workflows.Sessions.setPassword(caller, memberId as Member.Member["id"], password).pipe(at(`${path}.password`))
    })
  for (const [i, u] of org.users.entries()) {
    // a seed role's id, else the built-in role's name (the seed's check allows nothing else)
    const role = u.role === undefined ? undefined : (roleIds[u.role] ?? u.role) as Member.MemberCreateRequest["role"]
    const access = role !== undefined ? { role } : { permissions: u.permissions! }
    const current = byEmail.get(u.email.toLowerCase())
    const uat = `${path}.users[${i}]`
    if (current === undefined) {
      const created = yield* Workflows.Members.createMember(
        caller,
        { email: u.email, name: u.name ?? u.email, ...access } as Member.MemberCreateRequest
      )
        .pipe(at(uat))
      memberIds[u.email] = created.id
      yield* setPassword(created.id, u.password, uat)
      continue
    }
    memberIds[u.email] = current.id
    yield* setPassword(current.id, u.password, uat)
    const accessDiffers = role !== undefined
      ? current.role !== role
      : current.role !== null || !samePermissions(current.permissions, u.permissions!)
    const nameDiffers = u.name !== undefined && u.name !== current.name
    if (accessDiffers || nameDiffers) {
      yield* Workflows.Members.updateMember(caller, current.id, {
        ...(nameDiffers ? { name: u.name } : {}),
        ...(accessDiffers ? access : {})
      } as Member.MemberUpdateRequest).pipe(at(uat))
    }
  }
  return { roles: roleIds, members: memberIds }
})
