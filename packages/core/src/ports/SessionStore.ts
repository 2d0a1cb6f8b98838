/**
 * Members' passwords and browser sessions (issue 17). A member's credentials and sessions belong to
 * the member: removing the member (`AccessStore.members.delete`) removes them in the same write.
 * Neither a password nor a session token is stored: only the password's KDF hash and the token's
 * SHA-256.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { MemberId, OrgId, SessionId } from "../Id.js"
import type { Member } from "../Member.js"
import type { Organization } from "../Organization.js"
import type { CustomRole } from "../Role.js"
import type { StoredSession } from "../Session.js"

/** A member who may sign in with a password, with what authentication reads beside it. */
export interface CredentialMatch {
  readonly orgId: OrgId
  readonly organization: Organization
  readonly member: Member
  /** The member's custom role as stored now; `null` for a built-in role or an explicit set. */
  readonly customRole: CustomRole | null
  /** The encoded KDF hash (`PasswordHasher`). */
  readonly passwordHash: string
}

/** A session found by its token's hash, with its member and organization as they are now. */
export interface SessionMatch {
  readonly orgId: OrgId
  readonly organization: Organization
  readonly member: Member
  readonly customRole: CustomRole | null
  readonly session: StoredSession
}

export class SessionStore extends Context.Service<SessionStore, {
  readonly credentials: {
    /** Sets (or replaces) the member's password hash; a member that does not exist is left alone. */
    readonly set: (orgId: OrgId, memberId: MemberId, passwordHash: string, at: string) => Effect.Effect<void>
    /** Whether the member has a password. */
    readonly has: (orgId: OrgId, memberId: MemberId) => Effect.Effect<boolean>
    /**
     * Every member with a password whose email matches `emailKey` (`Member.emailKey`), in every
     * organization: sign-in starts from the email, before the organization is known. Ordered by the
     * member's creation, then organization id.
     */
    readonly findByEmail: (emailKey: string) => Effect.Effect<ReadonlyArray<CredentialMatch>>
  }
  readonly insert: (orgId: OrgId, session: StoredSession) => Effect.Effect<void>
  /** The only unscoped read of a session: authentication starts from the cookie. Never cached. */
  readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<SessionMatch>>
  /** Records a use at `at` (ISO 8601) unless a later one is recorded; touches nothing else. */
  readonly touch: (orgId: OrgId, id: SessionId, at: string) => Effect.Effect<void>
  readonly delete: (orgId: OrgId, id: SessionId) => Effect.Effect<void>
  /** Ends every session of the member (a new password signs it out everywhere). */
  readonly deleteForMember: (orgId: OrgId, memberId: MemberId) => Effect.Effect<void>
  /** Removes the member's sessions that ended: absolute expiry at or before `now`, or last use at or before `lastSeenBefore`. */
  readonly prune: (orgId: OrgId, memberId: MemberId, now: string, lastSeenBefore: string) => Effect.Effect<void>
}>()("@image-policy/core/SessionStore") {}
