/**
 * A thin `fetch` for the session routes (sign in, who am I, sign out). The sign-in page is the first
 * load, so it must not pull the typed Effect client in (bundle budget: 200 KB gzipped); the pages use
 * that client through `api.ts`, loaded with them.
 */
import type { Session as CoreSession } from "@image-policy/core"
import { type ApiError, toApiError } from "./problem.js"

export type Session = CoreSession.SessionView

export type Result<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: ApiError }

const call = async <A>(method: string, path: string, init: { body?: unknown; csrfToken?: string | undefined } = {}): Promise<Result<A>> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (init.body !== undefined) headers["content-type"] = "application/json"
  if (init.csrfToken !== undefined) headers["x-csrf-token"] = init.csrfToken
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {})
    })
  } catch {
    return { ok: false, error: toApiError(undefined, 0) }
  }
  if (response.status === 204) return { ok: true, value: undefined as A }
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) return { ok: false, error: toApiError(body, response.status, response.headers.get("retry-after")) }
  return { ok: true, value: body as A }
}

export const getSession = () => call<Session>("GET", "/api/v1/session")
export const signIn = (email: string, password: string) => call<Session>("POST", "/api/v1/session", { body: { email, password } })
export const signOut = (csrfToken: string | undefined) => call<void>("DELETE", "/api/v1/session", { csrfToken })
