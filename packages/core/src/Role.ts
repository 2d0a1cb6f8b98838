/**
 * Roles (spec 2: "a role (a built-in or custom role)"; contracts 3): the four built-in roles, read
 * only, and an organization's custom roles, each a name and a permission set. API keys and members
 * name a role by its id: a built-in role's id is its name (`Owner`), a custom role's is `role_…`, so
 * one field holds either and the two never collide. A role is resolved when a request is checked:
 * editing a custom role changes what every key and member holding it may do at once.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { RoleId } from "./Id.js"
import { allPermissions, Permission, RoleName, roles as builtInRoles } from "./Permission.js"
import { storable } from "./Text.js"

/** A built-in role by its name, or a custom role by its id. */
export const RoleRef = Schema.Union([RoleName, RoleId]).annotate({
  description: "a built-in role's name (Owner, Security Administrator, Policy Automation, Read Only) or a custom role's id (role_…)"
})
export type RoleRef = typeof RoleRef.Type

const builtInNames: ReadonlyArray<string> = RoleName.literals

export const isBuiltIn = (ref: RoleRef): ref is RoleName => builtInNames.includes(ref)

export const RoleDisplayName = storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(100)))

export const CustomRole = Schema.Struct({
  id: RoleId,
  name: Schema.String,
  permissions: Schema.Array(Permission),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type CustomRole = typeof CustomRole.Type

export const RoleCreateRequest = Schema.Struct({
  name: RoleDisplayName,
  permissions: Schema.NonEmptyArray(Permission)
})
export type RoleCreateRequest = typeof RoleCreateRequest.Type

export const RoleUpdateRequest = Schema.Struct({
  name: Schema.optionalKey(RoleDisplayName),
  permissions: Schema.optionalKey(Schema.NonEmptyArray(Permission))
})
export type RoleUpdateRequest = typeof RoleUpdateRequest.Type

export const RoleView = Schema.Struct({
  /** What `role` fields take: the name of a built-in role, `role_…` of a custom one. */
  id: Schema.String,
  name: Schema.String,
  builtIn: Schema.Boolean,
  permissions: Schema.Array(Permission),
  createdAt: Schema.NullOr(Schema.String),
  updatedAt: Schema.NullOr(Schema.String)
})
export type RoleView = typeof RoleView.Type

/** The built-in roles as `GET /roles` lists them, in the contracts' order, before any custom role. */
export const builtInViews: ReadonlyArray<RoleView> = RoleName.literals.map((name) => ({
  id: name,
  name,
  builtIn: true,
  permissions: builtInRoles[name],
  createdAt: null,
  updatedAt: null
}))

export const toView = (role: CustomRole): RoleView => ({
  id: role.id,
  name: role.name,
  builtIn: false,
  permissions: role.permissions,
  createdAt: role.createdAt,
  updatedAt: role.updatedAt
})

/** Role names are unique per organization whatever their case, built-in names included. */
export const nameKey = (name: string): string => name.trim().toLowerCase()

export const isBuiltInName = (name: string): boolean => builtInNames.some((n) => nameKey(n) === nameKey(name))

/** A permission set without repeats, in the contracts' order (so equal sets read equal). */
export const normalizePermissions = (permissions: ReadonlyArray<Permission>): ReadonlyArray<Permission> =>
  allPermissions.filter((p) => permissions.includes(p))

/**
 * What a holder of `role` (or of the explicit `permissions` when it has no role) may do, with
 * `custom` the custom role it names as stored now. A custom role that is gone grants nothing (fail
 * closed; deletion is refused while an active key or a member names it).
 */
export const permissionsOf = (
  role: RoleRef | null,
  permissions: ReadonlyArray<Permission>,
  custom: CustomRole | null | undefined
): ReadonlyArray<Permission> =>
  role === null ? permissions : isBuiltIn(role) ? builtInRoles[role] : custom?.id === role ? custom.permissions : []

export class RoleNotFound extends Schema.TaggedError<RoleNotFound>()("RoleNotFound", { roleId: Schema.String }) {
  override get message() {
    return `no custom role ${this.roleId} in this organization`
  }
}

export class RoleNameTaken extends Schema.TaggedError<RoleNameTaken>()("RoleNameTaken", { name: Schema.String }) {
  override get message() {
    return `a role named ${this.name} already exists (names are compared ignoring case, built-in roles included)`
  }
}

/** PATCH or DELETE of a built-in role. */
export class BuiltInRoleReadOnly extends Schema.TaggedError<BuiltInRoleReadOnly>()("BuiltInRoleReadOnly", {
  roleId: Schema.String
}) {
  override get message() {
    return `${this.roleId} is a built-in role; built-in roles cannot be changed or deleted`
  }
}

export class RoleInUse extends Schema.TaggedError<RoleInUse>()("RoleInUse", {
  roleId: Schema.String,
  members: Schema.Number,
  apiKeys: Schema.Number
}) {
  override get message() {
    return `role ${this.roleId} is still held by ${this.members} member(s) and ${this.apiKeys} active API key(s); give them another role first`
  }
}

/**
 * An operation that needs one of some built-in roles, not only a permission (spec 5.8: creating
 * webhooks requires Owner or Security Administrator). A custom role or an explicit permission set
 * holding the same permissions does not pass.
 */
export class RoleRequired extends Schema.TaggedError<RoleRequired>()("RoleRequired", {
  required: Schema.Array(RoleName)
}) {
  override get message() {
    return `this operation needs the role ${this.required.join(" or ")}`
  }
}

export const requireRole = (role: RoleRef | null, required: ReadonlyArray<RoleName>): Result.Result<void, RoleRequired> =>
  required.length === 0 || (role !== null && isBuiltIn(role) && required.includes(role))
    ? Result.void
    : Result.fail(new RoleRequired({ required }))

/** A request that would grant a permission the caller does not hold itself. */
export class PermissionNotGrantable extends Schema.TaggedError<PermissionNotGrantable>()("PermissionNotGrantable", {
  path: Schema.String,
  missing: Schema.Array(Permission)
}) {
  override get message() {
    return `you cannot grant permissions you do not hold: ${this.missing.join(", ")}`
  }
}

/**
 * Nobody grants more than they hold: a role or member may be given only permissions the caller has
 * (otherwise a caller with `members:manage` could widen its own custom role to everything).
 * `path` names the field that grants them (`permissions`, `role`).
 */
export const checkGrantable = (
  held: ReadonlyArray<Permission>,
  granted: ReadonlyArray<Permission>,
  path: string
): Result.Result<void, PermissionNotGrantable> => {
  const missing = normalizePermissions(granted.filter((p) => !held.includes(p)))
  return missing.length === 0 ? Result.void : Result.fail(new PermissionNotGrantable({ path, missing }))
}

/**
 * The built-in roles a page starts with after `position` (a cursor's position): all four on the
 * first page, the rest of them after a cursor that stopped among them, none after a cursor that
 * names a custom role (custom roles follow the built-in ones, by name).
 */
export const builtInsAfter = (position: { readonly id: string } | undefined): ReadonlyArray<RoleView> => {
  if (position === undefined) return builtInViews
  const i = builtInViews.findIndex((v) => v.id === position.id)
  return i < 0 ? [] : builtInViews.slice(i + 1)
}
