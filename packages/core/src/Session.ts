/**
 * Browser sessions of the web console (spec 5.1, issue 17): a member signs in with email and
 * password and gets a session cookie; unsafe requests made with that cookie carry the session's
 * CSRF token. These are the shapes the API and the console share; the rules (expiry, throttling)
 * live beside them.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { MemberId, OrgId, SessionId } from "./Id.js"
import { Edition } from "./Organization.js"
import { Permission } from "./Permission.js"
import { RoleRef } from "./Role.js"
import { constantTimeEqual } from "./Text.js"

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

// Passwords ---------------------------------------------------------------------------------------

/** The shortest password a member may set (NIST SP 800-63B asks for at least 8; we ask for 12). */
export const minPasswordLength = 12
/** The longest: the KDF reads all of it, so an unbounded password would make hashing slow on purpose. */
export const maxPasswordLength = 1024

/** A password being set (CLI, seed, API): 12..1024 characters, any characters. */
export const NewPassword = Schema.String.check(
  Schema.isMinLength(minPasswordLength, { message: `must be at least ${minPasswordLength} characters` }),
  Schema.isMaxLength(maxPasswordLength, { message: `must be at most ${maxPasswordLength} characters` })
)

/** The body of a password change: `{ password }`, checked by `NewPassword` (400 naming `password`). */
export const SetPasswordRequest = Schema.Struct({ password: NewPassword })
export type SetPasswordRequest = typeof SetPasswordRequest.Type

/** A signed-in member changing its own password: the current one proves it is the member, not a borrowed browser. */
export const ChangePasswordRequest = Schema.Struct({
  currentPassword: Schema.String.check(Schema.isMaxLength(maxPasswordLength)),
  newPassword: NewPassword
})
export type ChangePasswordRequest = typeof ChangePasswordRequest.Type

/** 400 naming `currentPassword`: the member's own password change gave a wrong current password. */
export class CurrentPasswordWrong extends Schema.TaggedError<CurrentPasswordWrong>()("CurrentPasswordWrong", {
  path: Schema.Literal("currentPassword")
}) {
  override get message() {
    return "is not your current password"
  }
}

/** What a password reset answers, once: the generated password (the store keeps only its KDF hash). */
export const PasswordReset = Schema.Struct({ password: Schema.String })
export type PasswordReset = typeof PasswordReset.Type

// Stored sessions and their expiry ------------------------------------------------------------------

/**
 * A session as stored: the cookie holds a random token, the store only its SHA-256 (`tokenHash`).
 * `expiresAt` is the absolute end fixed at sign-in; the idle end is `lastSeenAt` + the idle timeout.
 */
export const StoredSession = Schema.Struct({
  id: SessionId,
  memberId: MemberId,
  tokenHash: Schema.String,
  createdAt: Schema.String,
  expiresAt: Schema.String,
  lastSeenAt: Schema.String
})
export type StoredSession = typeof StoredSession.Type

/** How long sessions live: `idleMs` without use, `maxAgeMs` at most whatever the use. */
export interface Lifetimes {
  readonly idleMs: number
  readonly maxAgeMs: number
}

/** Idle 12 hours, absolute 7 days (both configurable: `--session-idle-timeout`, `--session-max-age`). */
export const defaultLifetimes: Lifetimes = { idleMs: 12 * 3_600_000, maxAgeMs: 7 * 86_400_000 }

/** The longest lifetime either setting may have (a year). */
export const maxLifetimeMs = 365 * 86_400_000

/**
 * A lifetime as operators write it: a whole number with a unit `s`, `m`, `h` or `d` (`90m`, `12h`,
 * `7d`), or seconds without a unit; 1 second to 365 days. `undefined` when it is not one.
 */
export const parseLifetime = (text: string): number | undefined => {
  const match = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(text)
  if (match === null) return undefined
  const unit = { "": 1_000, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "" | "s" | "m" | "h" | "d"]
  const ms = Number(match[1]) * unit
  return ms >= 1_000 && ms <= maxLifetimeMs ? ms : undefined
}

/**
 * How fresh `lastSeenAt` is kept: a session used again within this window is not written again, so
 * a busy console does not write on every request. The idle expiry is thus late by at most this much.
 */
export const touchResolutionMs = 60_000

/** When the session ends if unused from now on: the idle end, never past the absolute end. */
export const idleExpiresAtMs = (session: StoredSession, lifetimes: Lifetimes): number =>
  Math.min(Date.parse(session.lastSeenAt) + lifetimes.idleMs, Date.parse(session.expiresAt))

export type SessionStatus = "live" | "idle-expired" | "expired"

/** Whether the session is still live at `nowMs` (the absolute end is checked first). */
export const status = (session: StoredSession, nowMs: number, lifetimes: Lifetimes): SessionStatus =>
  nowMs >= Date.parse(session.expiresAt)
    ? "expired"
    : nowMs >= Date.parse(session.lastSeenAt) + lifetimes.idleMs
    ? "idle-expired"
    : "live"

/** Whether a use at `nowMs` should be written (`touchResolutionMs`). */
export const needsTouch = (session: StoredSession, nowMs: number): boolean => nowMs - Date.parse(session.lastSeenAt) >= touchResolutionMs

/** A new session at `nowMs`: live until the idle or the absolute end. */
export const open = (
  fields: { readonly id: SessionId; readonly memberId: MemberId; readonly tokenHash: string },
  nowMs: number,
  lifetimes: Lifetimes
): StoredSession => {
  const at = new Date(nowMs).toISOString()
  return { ...fields, createdAt: at, lastSeenAt: at, expiresAt: new Date(nowMs + lifetimes.maxAgeMs).toISOString() }
}

// Tokens ----------------------------------------------------------------------------------------------

/** The bytes of a session token (256 bits: unguessable, so a fast SHA-256 is enough to store it). */
export const tokenBytes = 32

/** The random bytes of a generated password (`Workflows.Sessions.generatePassword`): 96 bits. */
export const generatedPasswordBytes = 12

/** A token's text: lowercase hex (cookie-safe, 64 characters). */
export const formatToken = (bytes: Uint8Array): string => {
  let out = ""
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0")
  return out
}

/** Whether a cookie value can be a token at all: anything else is unknown without a lookup. */
export const looksLikeToken = (text: string): boolean => /^[0-9a-f]{64}$/.test(text)

/**
 * What the CSRF token is derived from: the hash of this text is the session's CSRF token. Derived,
 * not stored: the server recomputes it from the cookie on each request, the store holds nothing that
 * yields it, and JavaScript (which cannot read the HttpOnly cookie) learns it only from the session body.
 */
export const csrfSeed = (token: string): string => `image-policy/csrf/${token}`

// Cross-site request forgery ------------------------------------------------------------------------

/** 403: an unsafe request with the session cookie but without its CSRF token, or from another origin. */
export class CsrfRejected extends Schema.TaggedError<CsrfRejected>()("CsrfRejected", {
  reason: Schema.Literals(["missing-token", "wrong-token", "wrong-origin"])
}) {
  override get message() {
    return this.reason === "wrong-origin"
      ? "the request's Origin is not this service's public URL"
      : `unsafe requests made with the session cookie need the ${csrfHeader} header of the session`
  }
}

const safeMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

/** Whether a method changes nothing (RFC 9110 safe methods): those need no CSRF token. */
export const isSafeMethod = (method: string): boolean => safeMethods.has(method.toUpperCase())

/** What a request shows about where it comes from. */
export interface RequestOrigin {
  readonly method: string
  /** The `x-csrf-token` header, if any. */
  readonly csrfToken: string | undefined
  /** The `Origin` header, if any. */
  readonly origin: string | undefined
}

/**
 * Origin check: a request that names an `Origin` must name this service's (`allowedOrigin`, the
 * public URL's origin). Browsers send Origin on every cross-site unsafe request, so this refuses
 * them even before the token is checked; a request without Origin (a non-browser client) passes.
 */
export const checkOrigin = (request: RequestOrigin, allowedOrigin: string): Result.Result<void, CsrfRejected> =>
  request.origin === undefined || request.origin === allowedOrigin
    ? Result.void
    : Result.fail(new CsrfRejected({ reason: "wrong-origin" }))

/**
 * CSRF rule of every request made with the session cookie: safe methods pass; unsafe ones need the
 * `x-csrf-token` equal to the session's (`expected`) and, when `Origin` is present, this service's origin.
 */
export const checkCsrf = (request: RequestOrigin, expected: string, allowedOrigin: string): Result.Result<void, CsrfRejected> => {
  if (isSafeMethod(request.method)) return Result.void
  const origin = checkOrigin(request, allowedOrigin)
  if (Result.isFailure(origin)) return origin
  if (request.csrfToken === undefined || request.csrfToken === "") return Result.fail(new CsrfRejected({ reason: "missing-token" }))
  return constantTimeEqual(request.csrfToken, expected) ? Result.void : Result.fail(new CsrfRejected({ reason: "wrong-token" }))
}

// Authentication failures -------------------------------------------------------------------------

/**
 * 401 for a refused sign-in. One answer for every reason (unknown email, wrong password, no password
 * set, member disabled) so the answer never tells whether an account exists; `reason` is for audit
 * rows and logs only.
 */
export class SignInFailed extends Schema.TaggedError<SignInFailed>()("SignInFailed", {
  reason: Schema.Literals(["unknown-account", "wrong-password", "member-disabled"])
}) {
  override get message() {
    return "sign-in refused"
  }
}

/** 401: no session cookie, or its session is unknown, expired, ended, or its member disabled or removed. */
export class NotSignedIn extends Schema.TaggedError<NotSignedIn>()("NotSignedIn", {
  reason: Schema.Literals(["missing", "unknown", "expired", "idle-expired", "member-disabled"])
}) {
  override get message() {
    return `not signed in: session ${this.reason}`
  }
}

// Sign-in throttling ----------------------------------------------------------------------------------

/** At most `maxFailures` refused sign-ins within any `windowMs`; more wait until the oldest leaves the window. */
export interface ThrottlePolicy {
  readonly maxFailures: number
  readonly windowMs: number
}

/** Per account (email, whatever the organization): 5 failures in 15 minutes. */
export const accountThrottle: ThrottlePolicy = { maxFailures: 5, windowMs: 15 * 60_000 }
/** Per client address: 20 failures in 15 minutes (several people may share one address). */
export const addressThrottle: ThrottlePolicy = { maxFailures: 20, windowMs: 15 * 60_000 }

/**
 * How long to wait before the next attempt is allowed (0: allowed now), given the times of recent
 * failures (ascending). Refused attempts are not failures: waiting never grows by retrying.
 */
export const retryAfterMs = (failures: ReadonlyArray<number>, nowMs: number, policy: ThrottlePolicy): number => {
  const recent = failures.filter((t) => t > nowMs - policy.windowMs)
  if (recent.length < policy.maxFailures) return 0
  return Math.max(1, recent[recent.length - policy.maxFailures]! + policy.windowMs - nowMs)
}

/** The failures to keep after one more at `nowMs`: only those that can still count (the last `maxFailures` in the window). */
export const recordFailure = (failures: ReadonlyArray<number>, nowMs: number, policy: ThrottlePolicy): ReadonlyArray<number> =>
  [...failures.filter((t) => t > nowMs - policy.windowMs), nowMs].slice(-policy.maxFailures)
