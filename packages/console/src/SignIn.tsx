/**
 * `/sign-in`: email and password for a session cookie. Says why the user is here (session ended),
 * what went wrong (wrong email or password: one message for both, as the server answers; too many
 * attempts: how long to wait), and returns to `next` (the page they were on) once signed in.
 */
import { type FormEvent, useEffect, useRef, useState } from "react"
import { useLocation, useSearch } from "wouter"
import * as http from "./http.js"
import { type ApiError, formatWait } from "./problem.js"
import { rememberSession, safeNext } from "./session.js"

const messageOf = (error: ApiError): string => {
  if (error.status === 401) return "Wrong email or password."
  if (error.status === 429) {
    return error.retryAfterSeconds !== undefined
      ? `Too many sign-in attempts. Try again in ${formatWait(error.retryAfterSeconds)}.`
      : "Too many sign-in attempts. Wait a moment and try again."
  }
  return error.detail
}

export function SignIn() {
  const search = new URLSearchParams(useSearch())
  const next = safeNext(search.get("next"))
  const expired = search.get("expired") === "1"
  const passwordChanged = search.get("password-changed") === "1"
  const [, navigate] = useLocation()
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [error, setError] = useState<string | undefined>()
  const [pending, setPending] = useState(false)
  const alertRef = useRef<HTMLDivElement>(null)

  useEffect(() => {
    document.title = "Sign in · image-policy"
  }, [])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (pending) return
    if (email.trim() === "" || password === "") {
      setError("Enter your email and password.")
      requestAnimationFrame(() => alertRef.current?.focus())
      return
    }
    setPending(true)
    setError(undefined)
    const result = await http.signIn(email.trim(), password)
    setPending(false)
    if (result.ok) {
      rememberSession(result.value)
      navigate(next, { replace: true })
      return
    }
    setError(messageOf(result.error))
    requestAnimationFrame(() => alertRef.current?.focus())
  }

  return (
    <div className="signin">
      <main className="signin__card" id="main">
        <div className="signin__brand">
          <span className="brand__mark" aria-hidden="true">ip</span>
          <span className="brand__name">image-policy</span>
        </div>
        <h1 className="signin__title">Sign in</h1>
        {expired && error === undefined
          ? <p className="alert alert--info" role="status">Your session has ended. Sign in again to continue where you were.</p>
          : null}
        {passwordChanged && error === undefined
          ? (
            <p className="alert alert--info" role="status">
              Your password was changed and you were signed out everywhere. Sign in with the new one.
            </p>
          )
          : null}
        <div ref={alertRef} tabIndex={-1}>
          {error !== undefined
            ? (
              <div className="alert alert--error" role="alert">
                <p>{error}</p>
              </div>
            )
            : null}
        </div>
        <form className="form" onSubmit={submit} noValidate aria-label="Sign in">
          <div className="field">
            <label className="field__label" htmlFor="signin-email">Email</label>
            <input
              id="signin-email"
              className="input"
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-invalid={error !== undefined ? true : undefined}
            />
          </div>
          <div className="field">
            <label className="field__label" htmlFor="signin-password">Password</label>
            <input
              id="signin-password"
              className="input"
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              aria-invalid={error !== undefined ? true : undefined}
            />
          </div>
          <button type="submit" className="button button--primary button--block" disabled={pending}>
            {pending ? "Signing in…" : "Sign in"}
          </button>
        </form>
      </main>
    </div>
  )
}
