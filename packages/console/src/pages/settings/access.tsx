/**
 * The access model shared by API keys and members (spec 5.6): a role (built-in or custom) OR an
 * explicit permission set, chosen with radio buttons; permissions as checkboxes grouped by area.
 * Permissions the signed-in user does not hold are shown but cannot be ticked (the API refuses to
 * grant them: 403 permission-not-grantable).
 */
import { Permission, type Role } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { useId } from "react"
import { useQuery } from "../../api.js"
import { useSession } from "../../session.js"

type P = Permission.Permission

export const permissionGroups: ReadonlyArray<{ readonly title: string; readonly items: ReadonlyArray<readonly [P, string]> }> = [
  {
    title: "Policy",
    items: [["policy:read", "Read policy groups and mappings"], ["mappings:write", "Edit draft mappings"], [
      "policy:publish",
      "Publish policy"
    ]]
  },
  {
    title: "Repositories",
    items: [
      ["repositories:read", "Read repositories and findings"],
      ["repositories:manage", "Onboard repositories, manage VCS connections"],
      ["assignments:manage", "Assign policy groups"],
      ["vcs:read", "Read VCS connections"],
      ["teams:read", "Read teams and routines"]
    ]
  },
  {
    title: "Snooze requests",
    items: [["exceptions:read", "Read snooze requests"], ["exceptions:write", "Request snoozes"], [
      "exceptions:review",
      "Approve or reject snoozes"
    ]]
  },
  { title: "Reports and audit", items: [["reports:read", "Read compliance reports"], ["audit:read", "Read the audit log"]] },
  {
    title: "Administration",
    items: [
      ["organization:manage", "Manage teams, routines and settings"],
      ["webhooks:manage", "Manage webhooks"],
      ["api-keys:manage", "Manage API keys"],
      ["members:manage", "Manage members and roles"]
    ]
  }
]

/** The built-in roles as `GET /roles` lists them (for users who may not list roles). */
export const builtInRoles: ReadonlyArray<Role.RoleView> = Permission.RoleName.literals.map((name) => ({
  id: name,
  name,
  builtIn: true,
  permissions: Permission.roles[name],
  createdAt: null,
  updatedAt: null
}))

/** "Owner", a custom role's name, or "5 permissions". */
export const accessLabel = (
  access: { readonly role?: string | undefined; readonly permissions: ReadonlyArray<string> },
  roles: ReadonlyArray<Role.RoleView>
): string => {
  if (access.role !== undefined) return roles.find((r) => r.id === access.role)?.name ?? access.role
  return `${access.permissions.length} permission${access.permissions.length === 1 ? "" : "s"}`
}

/** Access as a cell: the role's name (or "Explicit"), with the permissions behind a disclosure. */
export function AccessCell(
  { access, roles, permissionsOnly = false }: {
    readonly access: { readonly role?: string | undefined; readonly permissions: ReadonlyArray<string> }
    readonly roles: ReadonlyArray<Role.RoleView>
    /** Only the permissions (a role's own row). */
    readonly permissionsOnly?: boolean
  }
) {
  return (
    <div className="access-cell">
      {permissionsOnly ? null : (
        <span>
          {access.role !== undefined
            ? (
              <>
                Role: <strong>{accessLabel(access, roles)}</strong>
              </>
            )
            : <>Explicit permissions</>}
        </span>
      )}
      <details className="perm-details">
        <summary>{access.permissions.length} permission{access.permissions.length === 1 ? "" : "s"}</summary>
        <ul className="perm-list">
          {access.permissions.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      </details>
    </div>
  )
}

export type Mode = "role" | "permissions"

export interface AccessValue {
  readonly mode: Mode
  readonly role: string
  readonly permissions: ReadonlyArray<P>
}

/** Grouped permission checkboxes (a fieldset per area). */
export function PermissionChecklist({ value, onChange, error, legend }: {
  readonly value: ReadonlyArray<P>
  readonly onChange: (next: ReadonlyArray<P>) => void
  readonly error?: string | undefined
  readonly legend: string
}) {
  const { can } = useSession()
  const id = useId()
  const toggle = (p: P, on: boolean) => onChange(on ? [...value, p] : value.filter((x) => x !== p))
  return (
    <fieldset
      className={error !== undefined ? "perm-fieldset field--invalid" : "perm-fieldset"}
      aria-describedby={error !== undefined ? `${id}-error` : undefined}
    >
      <legend className="field__label">{legend}</legend>
      <div className="perm-groups">
        {permissionGroups.map((g) => (
          <fieldset key={g.title} className="perm-group">
            <legend>{g.title}</legend>
            {g.items.map(([p, label]) => {
              const grantable = can(p)
              return (
                <label key={p} className={grantable ? "check" : "check check--disabled"}>
                  <input
                    type="checkbox"
                    name="permissions"
                    value={p}
                    checked={value.includes(p)}
                    disabled={!grantable}
                    aria-invalid={error !== undefined ? true : undefined}
                    onChange={(e) => toggle(p, e.target.checked)}
                  />
                  <span>
                    {label} <code className="check__code">{p}</code>
                    {grantable ? null : <span className="check__note">You do not hold this permission</span>}
                  </span>
                </label>
              )
            })}
          </fieldset>
        ))}
      </div>
      {error !== undefined ? <p id={`${id}-error`} className="field__error">{error}</p> : null}
    </fieldset>
  )
}

/** A role OR explicit permissions: radio buttons, then a role select or the permission checklist. */
export function AccessPicker({ value, onChange, roles, roleError, permissionsError }: {
  readonly value: AccessValue
  readonly onChange: (next: AccessValue) => void
  readonly roles: ReadonlyArray<Role.RoleView>
  readonly roleError?: string | undefined
  readonly permissionsError?: string | undefined
}) {
  const id = useId()
  const selected = roles.find((r) => r.id === value.role)
  return (
    <div className="access-picker">
      <fieldset className="radio-row">
        <legend className="field__label">Access</legend>
        <label className="check">
          <input type="radio" name={`${id}-mode`} checked={value.mode === "role"} onChange={() => onChange({ ...value, mode: "role" })} />
          <span>A role</span>
        </label>
        <label className="check">
          <input
            type="radio"
            name={`${id}-mode`}
            checked={value.mode === "permissions"}
            onChange={() => onChange({ ...value, mode: "permissions" })}
          />
          <span>Explicit permissions</span>
        </label>
      </fieldset>
      {value.mode === "role"
        ? (
          <div className={roleError !== undefined ? "field field--invalid" : "field"}>
            <label htmlFor={`${id}-role`} className="field__label">Role</label>
            <p id={`${id}-role-hint`} className="field__hint">
              {selected !== undefined
                ? `Grants ${selected.permissions.length} permission${selected.permissions.length === 1 ? "" : "s"}: ${
                  selected.permissions.join(", ")
                }.`
                : "Choose a role."}
            </p>
            <select
              id={`${id}-role`}
              className="input"
              name="role"
              value={value.role}
              aria-describedby={`${id}-role-hint${roleError !== undefined ? ` ${id}-role-error` : ""}`}
              aria-invalid={roleError !== undefined ? true : undefined}
              onChange={(e) => onChange({ ...value, role: e.target.value })}
            >
              <option value="">Choose a role…</option>
              <optgroup label="Built-in roles">
                {roles.filter((r) => r.builtIn).map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
              </optgroup>
              {roles.some((r) => !r.builtIn)
                ? (
                  <optgroup label="Custom roles">
                    {roles.filter((r) => !r.builtIn).map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
                  </optgroup>
                )
                : null}
            </select>
            {roleError !== undefined ? <p id={`${id}-role-error`} className="field__error">{roleError}</p> : null}
          </div>
        )
        : (
          <PermissionChecklist
            legend="Permissions"
            value={value.permissions}
            onChange={(permissions) => onChange({ ...value, permissions })}
            error={permissionsError}
          />
        )}
    </div>
  )
}

/** Checks an access value as the API does: a role chosen, or at least one permission. */
export const accessErrors = (value: AccessValue): { role?: string; permissions?: string } =>
  value.mode === "role"
    ? value.role === "" ? { role: "Choose a role." } : {}
    : value.permissions.length === 0
    ? { permissions: "Choose at least one permission." }
    : {}

/** The access part of a request body: `{ role }` or `{ permissions }` (in the contracts' order). */
export const accessBody = (value: AccessValue): { role: Role.RoleRef } | { permissions: readonly [P, ...Array<P>] } =>
  value.mode === "role"
    ? { role: value.role as Role.RoleRef }
    : { permissions: Permission.allPermissions.filter((p) => value.permissions.includes(p)) as unknown as readonly [P, ...Array<P>] }

/**
 * The roles a key or member may be given: `GET /roles` (built-in then custom) for users who may
 * list them (`members:manage`), else the built-in roles.
 */
export function useRoles(): { readonly roles: ReadonlyArray<Role.RoleView>; readonly reload: () => void } {
  const { can } = useSession()
  const allowed = can("members:manage")
  const query = useQuery(
    (api, orgId) => allowed ? api.roles.listRoles({ params: { orgId }, query: { limit: 200 } }) : Effect.succeed({ items: builtInRoles }),
    [allowed]
  )
  return { roles: query.data?.items ?? builtInRoles, reload: query.reload }
}
