/**
 * Members: the people of an organization (issue 15), each with an email, a name and the same access
 * model as an API key (a built-in or custom role, or an explicit permission set), enabled or
 * disabled. The web console's sign-in (issue 17) adds credentials beside a member; nothing here
 * holds one. The email is the sign-in name: unique per organization whatever its case.
 */
import * as Schema from "effect/Schema"
import { MemberId } from "./Id.js"
import { Permission } from "./Permission.js"
import { type CustomRole, normalizePermissions, permissionsOf, RoleRef } from "./Role.js"
import { storable } from "./Text.js"

/**
 * A mailbox address as people type one: `local@domain.tld`, no spaces, at most 254 characters (RFC
 * 5321's path limit). Deliverability is not checked; the case is kept as given.
 */
export const Email = storable(
  Schema.Trim.check(
    Schema.isMaxLength(254),
    Schema.isPattern(/^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/u, { message: "must be an email address (name@example.com)" })
  )
)

const Name = storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(200)))

/** What an email is unique by: the address ignoring case. */
export const emailKey = (email: string): string => email.trim().toLowerCase()

export const Member = Schema.Struct({
  id: MemberId,
  email: Schema.String,
  name: Schema.String,
  role: Schema.NullOr(RoleRef),
  /** Explicit permission set; empty for members with a role, whose permissions are resolved at check time. */
  permissions: Schema.Array(Permission),
  disabled: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type Member = typeof Member.Type

// a body with both role and permissions is refused, not read as one of them (as for API keys)
const Excluded = (other: string) =>
  Schema.optionalKey(
    Schema.Never.annotate({
      message: `give either role or permissions, not both (${other} given)`,
      description: `not allowed together with \`${other}\``
    })
  )

export const MemberCreateRequest = Schema.Union([
  Schema.Struct({ email: Email, name: Name, role: RoleRef, permissions: Excluded("role") }),
  Schema.Struct({ email: Email, name: Name, permissions: Schema.NonEmptyArray(Permission), role: Excluded("permissions") })
])
export type MemberCreateRequest = typeof MemberCreateRequest.Type

/** Every field optional; `role` and `permissions` replace each other (one of them, never both). */
export const MemberUpdateRequest = Schema.Union([
  Schema.Struct({
    name: Schema.optionalKey(Name),
    disabled: Schema.optionalKey(Schema.Boolean),
    role: Schema.optionalKey(RoleRef),
    permissions: Excluded("role")
  }),
  Schema.Struct({
    name: Schema.optionalKey(Name),
    disabled: Schema.optionalKey(Schema.Boolean),
    permissions: Schema.NonEmptyArray(Permission),
    role: Excluded("permissions")
  })
])
export type MemberUpdateRequest = typeof MemberUpdateRequest.Type

export const MemberView = Schema.Struct({
  id: MemberId,
  email: Schema.String,
  name: Schema.String,
  role: Schema.optionalKey(RoleRef),
  /** What the member may do now (its role's current set, or its explicit set). */
  permissions: Schema.Array(Permission),
  disabled: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type MemberView = typeof MemberView.Type

/** `roles`: the organization's custom roles by id, to resolve a member's custom role. */
export const toView = (member: Member, roles: ReadonlyMap<string, CustomRole>): MemberView => ({
  id: member.id,
  email: member.email,
  name: member.name,
  ...(member.role !== null ? { role: member.role } : {}),
  permissions: permissionsOf(member.role, member.permissions, member.role !== null ? roles.get(member.role) : null),
  disabled: member.disabled,
  createdAt: member.createdAt,
  updatedAt: member.updatedAt
})

/**
 * A member after `request`, at `at`: a new role drops the explicit set and new permissions drop
 * the role, so the member always holds exactly one access model.
 */
export const update = (member: Member, request: MemberUpdateRequest, at: string): Member => ({
  ...member,
  ...(request.name !== undefined ? { name: request.name } : {}),
  ...(request.disabled !== undefined ? { disabled: request.disabled } : {}),
  ...(request.role !== undefined ? { role: request.role, permissions: [] } : {}),
  ...(request.permissions !== undefined ? { role: null, permissions: [...new Set(request.permissions)] } : {}),
  updatedAt: at
})

// explicit sets compare as sets: the same permissions in another order are no change to write or audit
const sameAccess = (a: Member, b: Member): boolean =>
  a.role === b.role && normalizePermissions(a.permissions).join() === normalizePermissions(b.permissions).join()

/** Whether an update changed nothing a reader can see (then nothing is written or audited). */
export const sameState = (before: Member, after: Member): boolean =>
  before.name === after.name && before.disabled === after.disabled && sameAccess(before, after)

/** The audit action of an update: `member.disable` / `member.enable` when that is all it did, else `member.update`. */
export const auditAction = (before: Member, after: Member): string =>
  before.disabled !== after.disabled && before.name === after.name && sameAccess(before, after)
    ? after.disabled ? "member.disable" : "member.enable"
    : "member.update"

/** True when `request` changes what the member may do (the grant check applies then). */
export const changesAccess = (request: MemberUpdateRequest): boolean => request.role !== undefined || request.permissions !== undefined

export class MemberNotFound extends Schema.TaggedError<MemberNotFound>()("MemberNotFound", { memberId: Schema.String }) {
  override get message() {
    return `no member ${this.memberId} in this organization`
  }
}

// the address is not repeated in the error: errors reach logs, and emails are personal data
export class MemberEmailTaken extends Schema.TaggedError<MemberEmailTaken>()("MemberEmailTaken", {}) {
  override get message() {
    return "a member with this email already exists in this organization"
  }
}
