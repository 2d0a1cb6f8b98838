/**
 * Permissions and built-in roles (contracts section 3). A key holds a role (resolved at check
 * time, so it always means the role's current set) or an explicit permission set.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

export const allPermissions = [
  "policy:read",
  "mappings:write",
  "policy:publish",
  "vcs:read",
  "teams:read",
  "repositories:read",
  "repositories:manage",
  "assignments:manage",
  "exceptions:read",
  "exceptions:write",
  "exceptions:review",
  "webhooks:manage",
  "api-keys:manage",
  "audit:read",
  "reports:read",
  // teams, routines and organization settings (issue 15; docs/api.md): Owner and Security
  // Administrator hold it, Policy Automation and Read Only do not
  "organization:manage",
  "members:manage"
] as const

export const Permission = Schema.Literals(allPermissions)
export type Permission = typeof Permission.Type

export const RoleName = Schema.Literals(["Owner", "Security Administrator", "Policy Automation", "Read Only"])
export type RoleName = typeof RoleName.Type

export const roles: Readonly<Record<RoleName, ReadonlyArray<Permission>>> = {
  "Owner": allPermissions,
  // granting authority (keys, members, roles) stays the Owner's: a Security Administrator who could
  // make an Owner member or widen a role would hold api-keys:manage one step later
  "Security Administrator": allPermissions.filter((p) => p !== "api-keys:manage" && p !== "members:manage"),
  "Policy Automation": [
    "policy:read",
    "mappings:write",
    "policy:publish",
    "vcs:read",
    "teams:read",
    "repositories:read",
    "repositories:manage",
    "assignments:manage"
  ],
  "Read Only": allPermissions.filter((p) => p.endsWith(":read"))
}

export type Access = { readonly role: RoleName } | { readonly permissions: ReadonlyArray<Permission> }

export const permissionsOf = (access: Access): ReadonlyArray<Permission> => "role" in access ? roles[access.role] : access.permissions

export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  required: Schema.Array(Permission),
  missing: Schema.Array(Permission)
}) {
  override get message() {
    return `missing permission: ${this.missing.join(", ")}`
  }
}

/** Every required permission must be granted (spec 5.4: authority is checked per action). */
export const requirePermissions = (
  granted: ReadonlyArray<Permission>,
  required: ReadonlyArray<Permission>
): Result.Result<void, PermissionDenied> => {
  const missing = required.filter((p) => !granted.includes(p))
  return missing.length === 0 ? Result.void : Result.fail(new PermissionDenied({ required, missing }))
}
