/**
 * Browser sessions of the web console (spec 5.1, issue 17): a member signs in with email and
 * password and gets a session cookie; unsafe requests made with that cookie carry the session's
 * CSRF token. These are the shapes the API and the console share; the rules (expiry, throttling)
 * live beside them.
 */
import * as Schema from "effect/Schema"
import { MemberId, OrgId } from "./Id.js"
import { Edition } from "./Organization.js"
import { Permission } from "./Permission.js"
import { RoleRef } from "./Role.js"

/** The session cookie's name (HttpOnly, SameSite=Lax, Path=/, Secure when the public URL is https). */
export const cookieName = "image_policy_session"

/** The header every unsafe request made with the session cookie carries, equal to the session's token. */
export const csrfHeader = "x-csrf-token"

/**
 * Sign-in body. Both fields are bounded so a huge password cannot make the KDF slow; their content is
 * not otherwise checked here (a wrong address is just a failed sign-in, answered like a wrong password).
 * `organizationId` picks the organization when the same email is a member of several.
 */
export const SignInRequest = Schema.Struct({
  email: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(254)),
  password: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  organizationId: Schema.optionalKey(OrgId)
})
export type SignInRequest = typeof SignInRequest.Type

/** Who is signed in, where, what they may do, and the CSRF token for unsafe requests. */
export const SessionView = Schema.Struct({
  user: Schema.Struct({
    id: MemberId,
    email: Schema.String,
    name: Schema.String,
    role: Schema.optionalKey(RoleRef)
  }),
  organization: Schema.Struct({ id: OrgId, name: Schema.String, edition: Edition }),
  /** What the user may do now (the console shows only these actions; the server still checks each request). */
  permissions: Schema.Array(Permission),
  csrfToken: Schema.String,
  /** When the session ends whatever its use (absolute lifetime). */
  expiresAt: Schema.String,
  /** When it ends if unused (idle lifetime); each request moves it on. */
  idleExpiresAt: Schema.String
})
export type SessionView = typeof SessionView.Type
