/**
 * Who is signed in. `SessionProvider` loads `GET /api/v1/session` once; `useSession()` gives the
 * session, `can(permission)` (show only the actions the user may take: the server still checks each
 * request) and `signOut()`. Any 401 (an API call through `api.ts`, or the session's idle timer)
 * ends the session here and sends the user to `/sign-in?next=<where they were>`; signing in brings
 * them back there.
 */
import type { Permission } from "@image-policy/core"
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react"
import { useLocation } from "wouter"
import { Loading } from "./components/Loading.js"
import * as http from "./http.js"

export type Session = http.Session

export interface SessionContext {
  readonly session: Session
  readonly can: (permission: Permission.Permission) => boolean
  readonly signOut: () => Promise<void>
  /** The member's password changed, which ended every session: to sign-in, saying why. */
  readonly passwordChanged: () => void
}

const Context = createContext<SessionContext | null>(null)

/** The session of the signed-in user (inside the signed-in layout only). */
export const useSession = (): SessionContext => {
  const ctx = useContext(Context)
  if (ctx === null) throw new Error("useSession outside SessionProvider")
  return ctx
}

// The CSRF token of the current session, read by the typed client at each unsafe request.
let currentCsrfToken: string | undefined
export const csrfToken = (): string | undefined => currentCsrfToken

// A session the sign-in page just opened: the provider uses it instead of asking the server again.
let freshSession: Session | undefined
export const rememberSession = (session: Session) => {
  freshSession = session
  currentCsrfToken = session.csrfToken
}

// When this tab last made a request: each one moves the server's idle deadline on.
let lastActivity = Date.now()
/** Called by `api.ts` at each request (the idle timer below counts from the last one). */
export const noteActivity = () => {
  lastActivity = Date.now()
}

let onUnauthorized: (() => void) | undefined
/** Called by `api.ts` on any 401: the session is gone (expired, signed out elsewhere, user disabled). */
export const reportUnauthorized = () => onUnauthorized?.()

/** Why the session ended here: it expired (or was ended elsewhere), the user signed out, or changed its password. */
type Reason = "expired" | "signed-out" | "password-changed"

/** `/sign-in?next=/where/I/was` (only same-site paths are kept as `next`). */
export const signInPath = (next: string, reason?: Reason) => {
  const query = new URLSearchParams()
  if (next !== "/" && next !== "" && !next.startsWith("/sign-in")) query.set("next", next)
  if (reason === "expired") query.set("expired", "1")
  if (reason === "password-changed") query.set("password-changed", "1")
  const q = query.toString()
  return q === "" ? "/sign-in" : `/sign-in?${q}`
}

/** A `next` parameter that is safe to follow: a path of this site, never `//host` or a scheme. */
export const safeNext = (next: string | null): string =>
  next !== null && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/"

const currentPath = () => window.location.pathname + window.location.search

export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(() => freshSession ?? null)
  const [, navigate] = useLocation()

  const leave = useCallback((reason: Reason) => {
    currentCsrfToken = undefined
    freshSession = undefined
    setSession(null)
    navigate(signInPath(reason === "expired" ? currentPath() : "/", reason), { replace: reason === "expired" })
  }, [navigate])

  useEffect(() => {
    onUnauthorized = () => leave("expired")
    return () => {
      onUnauthorized = undefined
    }
  }, [leave])

  useEffect(() => {
    if (session !== null) return
    let cancelled = false
    void http.getSession().then((result) => {
      if (cancelled) return
      if (result.ok) {
        rememberSession(result.value)
        setSession(result.value)
      } else {
        // no session (401) or the service is down: either way the sign-in page says what to do
        navigate(signInPath(currentPath()), { replace: true })
      }
    })
    return () => {
      cancelled = true
    }
  }, [session, navigate])

  // Idle expiry: the server ends a session unused for its idle lifetime. When that much time has
  // passed since this tab's last request, ask the server once (401: back to sign-in, then here).
  useEffect(() => {
    if (session === null) return
    const idleMs = Date.parse(session.idleExpiresAt) - Date.now()
    const absoluteMs = Date.parse(session.expiresAt) - Date.now()
    if (Number.isNaN(idleMs) || Number.isNaN(absoluteMs)) return
    const absoluteAt = Date.now() + absoluteMs
    let timer: number | undefined
    const arm = (delay: number) => {
      timer = window.setTimeout(check, Math.max(1_000, Math.min(delay, 2 ** 31 - 1)))
    }
    const check = () => {
      const due = Math.min(lastActivity + idleMs, absoluteAt)
      if (Date.now() < due) return arm(due - Date.now() + 1_000)
      void http.getSession().then((result) => {
        if (!result.ok && result.error.status === 401) leave("expired")
        else if (result.ok) setSession(result.value)
        else arm(30_000)
      })
    }
    arm(idleMs + 1_000)
    return () => window.clearTimeout(timer)
  }, [session, leave])

  const value = useMemo<SessionContext | null>(() => {
    if (session === null) return null
    const granted = new Set<string>(session.permissions)
    return {
      session,
      can: (permission) => granted.has(permission),
      signOut: async () => {
        await http.signOut(currentCsrfToken)
        leave("signed-out")
      },
      passwordChanged: () => leave("password-changed")
    }
  }, [session, leave])

  if (value === null) return <Loading label="Loading your session" fullPage />
  return <Context.Provider value={value}>{children}</Context.Provider>
}
