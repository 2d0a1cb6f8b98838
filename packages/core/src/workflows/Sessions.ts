/**
 * Browser sessions of the web console (issue 17): sign in with email and password, read the
 * session, sign out, authenticate a request's session cookie (with its CSRF rule and the same
 * organization and permission checks as an API key), and set a member's password.
 *
 * Sessions do not pass the edition gate: the console is for every edition; the gate is for the
 * Automation API (API keys, `ApiKeys.authenticate`).
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { MemberId, OrgId } from "../Id.js"
import * as Input from "../Input.js"
import * as Member from "../Member.js"
import { type Permission, type PermissionDenied, requirePermissions } from "../Permission.js"
import { AccessStore } from "../ports/AccessStore.js"
import { Ids } from "../ports/Ids.js"
import { PasswordHasher } from "../ports/PasswordHasher.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { type CredentialMatch, type SessionMatch, SessionStore } from "../ports/SessionStore.js"
import { transaction } from "../ports/Transaction.js"
import * as Role from "../Role.js"
import * as Session from "../Session.js"
import { OrganizationNotFound, type Requirement } from "./ApiKeys.js"
import { audit, type Caller, now } from "./Caller.js"

/** The caller a member's own actions are audited as. */
export const memberCaller = (orgId: OrgId, memberId: MemberId, correlationId: string): Caller => ({
  orgId,
  actor: { kind: "member", memberId },
  correlationId
})

const permissionsOf = (match: { readonly member: Member.Member; readonly customRole: Role.CustomRole | null }) =>
  Role.permissionsOf(match.member.role, match.member.permissions, match.customRole)

const viewOf = (
  match: Omit<SessionMatch, "session">,
  session: Session.StoredSession,
  csrfToken: string,
  lifetimes: Session.Lifetimes
): Session.SessionView => ({
  user: {
    id: match.member.id,
    email: match.member.email,
    name: match.member.name,
    ...(match.member.role !== null ? { role: match.member.role } : {})
  },
  organization: { id: match.organization.id, name: match.organization.name, edition: match.organization.edition },
  permissions: permissionsOf(match),
  csrfToken,
  expiresAt: session.expiresAt,
  idleExpiresAt: new Date(Session.idleExpiresAtMs(session, lifetimes)).toISOString()
})

export interface SignedIn {
  /** The cookie's value: shown once, here; the store keeps only its SHA-256. */
  readonly token: string
  readonly view: Session.SessionView
}

/**
 * Sign-in. The email may belong to members of several organizations: `organizationId` picks one;
 * without it the first membership (by creation) whose password matches wins. An unknown email is
 * checked against a dummy hash, so it takes as long as a wrong password and gets the same 401.
 * Refusals of known accounts are audited in each organization the email is a member of (actor: the
 * member); an unknown email names no organization and is not audited (the throttle still counts it).
 * A sign-in form posted from another site (login CSRF) names that site as its Origin: refused (403)
 * before any account is looked at.
 */
export const signIn = Effect.fnUntraced(function*(
  request: Session.SignInRequest,
  origin: Session.RequestOrigin,
  allowedOrigin: string,
  lifetimes: Session.Lifetimes,
  correlationId: string
) {
  yield* Effect.fromResult(Session.checkOrigin(origin, allowedOrigin))
  const store = yield* SessionStore
  const passwords = yield* PasswordHasher
  const all = yield* store.credentials.findByEmail(Member.emailKey(request.email))
  const candidates = request.organizationId === undefined ? all : all.filter((c) => c.orgId === request.organizationId)
  if (candidates.length === 0) {
    yield* passwords.verify(request.password, null)
    return yield* new Session.SignInFailed({ reason: "unknown-account" })
  }
  let chosen: CredentialMatch | undefined
  for (const candidate of candidates) {
    if (yield* passwords.verify(request.password, candidate.passwordHash)) {
      chosen = candidate
      break
    }
  }
  const refuse = (matches: ReadonlyArray<CredentialMatch>, reason: Session.SignInFailed["reason"]) =>
    Effect.andThen(
      Effect.forEach(matches, (m) =>
        audit(memberCaller(m.orgId, m.member.id, correlationId), "session.sign_in", "member", m.member.id, {
          outcome: "rejected",
          detail: reason
        }), { discard: true }),
      Effect.fail(new Session.SignInFailed({ reason }))
    )
  if (chosen === undefined) return yield* refuse(candidates, "wrong-password")
  if (chosen.member.disabled) return yield* refuse([chosen], "member-disabled")
  const member = chosen
  const ids = yield* Ids
  const hasher = yield* SecretHasher
  const token = Session.formatToken(yield* ids.randomBytes(Session.tokenBytes))
  const at = (yield* now).getTime()
  const session = Session.open(
    { id: yield* ids.next("session"), memberId: member.member.id, tokenHash: yield* hasher.hash(token) },
    at,
    lifetimes
  )
  yield* transaction(Effect.gen(function*() {
    // the member's ended sessions go when it signs in again, so they never pile up
    yield* store.prune(member.orgId, member.member.id, session.createdAt, new Date(at - lifetimes.idleMs).toISOString())
    yield* store.insert(member.orgId, session)
    yield* audit(memberCaller(member.orgId, member.member.id, correlationId), "session.sign_in", "session", session.id)
  }))
  return { token, view: viewOf(member, session, yield* hasher.hash(Session.csrfSeed(token)), lifetimes) } satisfies SignedIn
})

/**
 * A password made for a member (the CLI without a piped one, the demo user at each start): 96
 * random bits as 24 hex characters, unguessable and easy to copy. Shown once by whoever asked.
 */
export const generatePassword: Effect.Effect<string, never, Ids> = Ids.use((ids) =>
  Effect.map(ids.randomBytes(Session.generatedPasswordBytes), Session.formatToken)
)

/** A live session, its member and organization as they are now, and its CSRF token. */
export interface Authenticated extends SessionMatch {
  readonly permissions: ReadonlyArray<Permission>
  readonly csrfToken: string
}

/**
 * The session of a cookie's token: 401 when missing, unknown, expired (idle or absolute) or its
 * member disabled (a disabled member loses every session at once; a removed member's sessions are
 * gone with it). A use is recorded at most once a minute (`Session.touchResolutionMs`).
 */
export const authenticate = (
  token: string | undefined,
  lifetimes: Session.Lifetimes
): Effect.Effect<Authenticated, Session.NotSignedIn, SessionStore | SecretHasher> =>
  Effect.gen(function*() {
    if (token === undefined || token === "") return yield* new Session.NotSignedIn({ reason: "missing" })
    if (!Session.looksLikeToken(token)) return yield* new Session.NotSignedIn({ reason: "unknown" })
    const store = yield* SessionStore
    const hasher = yield* SecretHasher
    const found = yield* store.findByTokenHash(yield* hasher.hash(token))
    if (Option.isNone(found)) return yield* new Session.NotSignedIn({ reason: "unknown" })
    const match = found.value
    const at = (yield* now).getTime()
    const status = Session.status(match.session, at, lifetimes)
    if (status !== "live") {
      yield* store.delete(match.orgId, match.session.id)
      return yield* new Session.NotSignedIn({ reason: status })
    }
    if (match.member.disabled) return yield* new Session.NotSignedIn({ reason: "member-disabled" })
    let session = match.session
    if (Session.needsTouch(session, at)) {
      session = { ...session, lastSeenAt: new Date(at).toISOString() }
      yield* store.touch(match.orgId, session.id, session.lastSeenAt)
    }
    return { ...match, session, permissions: permissionsOf(match), csrfToken: yield* hasher.hash(Session.csrfSeed(token)) }
  })

/** `authenticate` with its services given (the host's middleware holds them since its layer was built). */
export const authenticateWith = (
  services: Context.Context<SessionStore | SecretHasher>,
  token: string | undefined,
  lifetimes: Session.Lifetimes
) => Effect.provideContext(authenticate(token, lifetimes), services)

export type AuthorizationError = Session.NotSignedIn | Session.CsrfRejected | OrganizationNotFound | PermissionDenied | Role.RoleRequired

/**
 * An organization route called with the session cookie, in the order of contracts 4 as for API keys
 * (less the edition gate): 401 (no live session) -> 403 CSRF (an unsafe request without the
 * session's token or from another origin: refused before anything about the organization is told)
 * -> 404 (the organization in the path is not the session's) -> 403 (permission) -> 403 (role by name).
 */
export const authorizeWith = (
  services: Context.Context<SessionStore | SecretHasher>,
  token: string | undefined,
  request: Session.RequestOrigin,
  allowedOrigin: string,
  orgIdInPath: string,
  required: Requirement,
  lifetimes: Session.Lifetimes
): Effect.Effect<Authenticated, AuthorizationError> =>
  Effect.flatMap(authenticateWith(services, token, lifetimes), (session): Effect.Effect<Authenticated, AuthorizationError> => {
    const csrf = Session.checkCsrf(request, session.csrfToken, allowedOrigin)
    if (Result.isFailure(csrf)) return Effect.fail(csrf.failure)
    if (session.orgId !== orgIdInPath) return Effect.fail(new OrganizationNotFound({ orgId: orgIdInPath }))
    const granted = requirePermissions(session.permissions, required.permissions)
    if (Result.isFailure(granted)) return Effect.fail(granted.failure)
    if (required.roles !== undefined) {
      const role = Role.requireRole(session.member.role, required.roles)
      if (Result.isFailure(role)) return Effect.fail(role.failure)
    }
    return Effect.succeed(session)
  })

/** Who is signed in (GET /session). */
export const getSession = Effect.fnUntraced(function*(token: string | undefined, lifetimes: Session.Lifetimes) {
  const session = yield* authenticate(token, lifetimes)
  return viewOf(session, session.session, session.csrfToken, lifetimes)
})

/**
 * Sign-out: ends the session (audited). Without a live session there is nothing to end and it
 * succeeds; with one, the CSRF rule applies (a forged request cannot sign a user out).
 */
export const signOut = Effect.fnUntraced(
  function*(
    token: string | undefined,
    request: Session.RequestOrigin,
    allowedOrigin: string,
    lifetimes: Session.Lifetimes,
    correlationId: string
  ) {
    const session = yield* Effect.option(authenticate(token, lifetimes))
    if (Option.isNone(session)) return
    const { member, orgId } = session.value
    yield* Effect.fromResult(Session.checkCsrf(request, session.value.csrfToken, allowedOrigin))
    const store = yield* SessionStore
    yield* transaction(Effect.gen(function*() {
      yield* store.delete(orgId, session.value.session.id)
      yield* audit(memberCaller(orgId, member.id, correlationId), "session.sign_out", "session", session.value.session.id)
    }))
  }
)

/**
 * The edge's sign-in throttle for one client, asked by account (`Member.emailKey`): `wait` fails
 * while the account or the client must wait; `failed` counts a wrong password.
 */
export interface PasswordGuard<E> {
  readonly wait: (account: string) => Effect.Effect<void, E>
  readonly failed: (account: string) => Effect.Effect<void>
}

/**
 * A signed-in member changes its own password (PUT /session/password): the session and the CSRF
 * rule as for any unsafe request, then the sign-in throttle of the session's account (`guard`),
 * then the current password must match (a wrong one is audited and counted by `guard`), then
 * `setPassword`, which signs the member out everywhere, this browser too.
 */
export const changePassword = <E>(
  token: string | undefined,
  origin: Session.RequestOrigin,
  allowedOrigin: string,
  lifetimes: Session.Lifetimes,
  request: Session.ChangePasswordRequest,
  correlationId: string,
  guard: PasswordGuard<E>
) =>
  Effect.gen(function*() {
    const session = yield* authenticate(token, lifetimes)
    yield* Effect.fromResult(Session.checkCsrf(origin, session.csrfToken, allowedOrigin))
    yield* Input.validate(Session.ChangePasswordRequest, request)
    const { member, orgId } = session
    const account = Member.emailKey(member.email)
    yield* guard.wait(account)
    const caller = memberCaller(orgId, member.id, correlationId)
    const credentials = yield* (yield* SessionStore).credentials.findByEmail(account)
    const own = credentials.find((c) => c.orgId === orgId && c.member.id === member.id)
    if (!(yield* (yield* PasswordHasher).verify(request.currentPassword, own?.passwordHash ?? null))) {
      yield* guard.failed(account)
      yield* audit(caller, "member.set_password", "member", member.id, { outcome: "rejected", detail: "wrong current password" })
      return yield* new Session.CurrentPasswordWrong({ path: "currentPassword" })
    }
    yield* setPassword(caller, member.id, request.newPassword)
  })

/**
 * Sets a member's password (CLI, seed, a reset by an administrator, and a member changing its own): at least 12 characters (a
 * 400 naming `password`), hashed with the KDF. Every session of the member ends: a new password
 * signs it out everywhere. Audited as `member.set_password` (never the password).
 */
export const setPassword = Effect.fnUntraced(function*(caller: Caller, memberId: MemberId, password: string) {
  yield* Input.validate(Session.SetPasswordRequest, { password })
  const { members } = yield* AccessStore
  const store = yield* SessionStore
  const hash = yield* (yield* PasswordHasher).hash(password)
  yield* transaction(Effect.gen(function*() {
    if (Option.isNone(yield* members.get(caller.orgId, memberId))) return yield* new Member.MemberNotFound({ memberId })
    yield* store.credentials.set(caller.orgId, memberId, hash, (yield* now).toISOString())
    yield* store.deleteForMember(caller.orgId, memberId)
    yield* audit(caller, "member.set_password", "member", memberId)
  }))
})
