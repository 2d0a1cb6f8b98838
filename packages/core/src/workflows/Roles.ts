/**
 * Custom roles (issue 15): list (the built-in roles first, read only, then the organization's own),
 * create, edit and delete. A role edit counts at once for every key and member holding it (roles
 * are resolved when a request is checked). Nobody grants more than they hold.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Cursor from "../Cursor.js"
import type { RoleId } from "../Id.js"
import * as Input from "../Input.js"
import type { PageRequest } from "../Page.js"
import type { Permission } from "../Permission.js"
import { AccessStore } from "../ports/AccessStore.js"
import { Ids } from "../ports/Ids.js"
import { transaction } from "../ports/Transaction.js"
import * as Role from "../Role.js"
import { audit, type Caller, now } from "./Caller.js"

/** A caller with the permissions it holds: who may grant what (`Role.checkGrantable`). */
export interface Grantor extends Caller {
  readonly permissions: ReadonlyArray<Permission>
}

export const listRoles = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const { roles } = yield* AccessStore
  const position = page.cursor === undefined ? undefined : yield* Effect.fromResult(Cursor.decodeCursor(page.cursor))
  const remaining = Role.builtInsAfter(position)
  const builtIns = remaining.slice(0, page.limit)
  const room = page.limit - builtIns.length
  if (room === 0) {
    // the page ends among the built-in roles: a cursor only when something follows
    const last = builtIns[builtIns.length - 1]!
    const more = remaining.length > builtIns.length || (yield* roles.list(caller.orgId, { limit: 1 })).items.length > 0
    return { items: builtIns, nextCursor: more ? Cursor.encodeCursor({ sortKey: last.name, id: last.id }) : null }
  }
  const inBuiltIns = position === undefined || Role.isBuiltIn(position.id as Role.RoleRef)
  const custom = yield* roles.list(caller.orgId, { limit: room, cursor: inBuiltIns ? undefined : page.cursor })
  return { items: [...builtIns, ...custom.items.map(Role.toView)], nextCursor: custom.nextCursor }
})

export const createRole = Effect.fnUntraced(function*(caller: Grantor, request: Role.RoleCreateRequest) {
  yield* Input.validate(Role.RoleCreateRequest, request)
  yield* Effect.fromResult(Role.checkGrantable(caller.permissions, request.permissions, "permissions"))
  if (Role.isBuiltInName(request.name)) return yield* new Role.RoleNameTaken({ name: request.name })
  const { roles } = yield* AccessStore
  const ids = yield* Ids
  const at = (yield* now).toISOString()
  const role: Role.CustomRole = {
    id: yield* ids.next("role"),
    name: request.name,
    permissions: Role.normalizePermissions(request.permissions),
    createdAt: at,
    updatedAt: at
  }
  return yield* transaction(Effect.gen(function*() {
    if (!(yield* roles.insert(caller.orgId, role))) return yield* new Role.RoleNameTaken({ name: request.name })
    yield* audit(caller, "role.create", "role", role.id)
    return Role.toView(role)
  }))
})

/** The custom role a path names: 404 when unknown, 409 for a built-in role (read only). */
const customRoleIn = (caller: Caller, roleId: string) =>
  Effect.gen(function*() {
    if (Role.isBuiltIn(roleId as Role.RoleRef)) return yield* new Role.BuiltInRoleReadOnly({ roleId })
    const role = yield* (yield* AccessStore).roles.lock(caller.orgId, roleId as RoleId)
    if (Option.isNone(role)) return yield* new Role.RoleNotFound({ roleId })
    return role.value
  })

export const updateRole = Effect.fnUntraced(function*(caller: Grantor, roleId: string, request: Role.RoleUpdateRequest) {
  yield* Input.validate(Role.RoleUpdateRequest, request)
  if (request.permissions !== undefined) {
    yield* Effect.fromResult(Role.checkGrantable(caller.permissions, request.permissions, "permissions"))
  }
  const { roles } = yield* AccessStore
  return yield* transaction(Effect.gen(function*() {
    const current = yield* customRoleIn(caller, roleId)
    if (request.name !== undefined && Role.isBuiltInName(request.name)) return yield* new Role.RoleNameTaken({ name: request.name })
    const updated: Role.CustomRole = {
      ...current,
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...(request.permissions !== undefined ? { permissions: Role.normalizePermissions(request.permissions) } : {})
    }
    const unchanged = updated.name === current.name && updated.permissions.join() === current.permissions.join()
    if (unchanged) return Role.toView(current)
    const stamped = { ...updated, updatedAt: (yield* now).toISOString() }
    if (!(yield* roles.update(caller.orgId, stamped))) return yield* new Role.RoleNameTaken({ name: stamped.name })
    yield* audit(caller, "role.update", "role", stamped.id)
    return Role.toView(stamped)
  }))
})

/** Refused (409) while a member or an active API key holds the role: they would lose every permission at once. */
export const deleteRole = Effect.fnUntraced(function*(caller: Caller, roleId: string) {
  const { roles } = yield* AccessStore
  yield* transaction(Effect.gen(function*() {
    const role = yield* customRoleIn(caller, roleId)
    const usage = yield* roles.usage(caller.orgId, role.id, (yield* now).toISOString())
    if (usage.members > 0 || usage.apiKeys > 0) return yield* new Role.RoleInUse({ roleId: role.id, ...usage })
    yield* roles.delete(caller.orgId, role.id)
    yield* audit(caller, "role.delete", "role", role.id)
  }))
})
