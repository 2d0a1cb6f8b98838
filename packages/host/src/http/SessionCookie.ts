/**
 * The session cookie at the edge (issue 17; docs/sessions.md): what the session routes and the
 * `session` security scheme of organization routes (Auth.ts) read from a request (the cookie, the
 * CSRF header, the Origin) and the cookie they set. `HttpOnly` (scripts never read it),
 * `SameSite=Lax` (not sent on cross-site subrequests or unsafe methods), `Path=/`, and `Secure`
 * whenever the public URL is https.
 */
import { Session } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"

export interface Options {
  /** `--public-url`: its origin is the only Origin unsafe cookie requests may name, and https makes the cookie Secure. */
  readonly publicUrl?: string | undefined
  readonly sessionLifetimes: Session.Lifetimes
}

/**
 * The Origin a request made with the cookie may name: the public URL's origin (parsed once, here, not
 * on every request); without a public URL, the origin the request itself names (Host, plain http).
 */
export const allowedOrigin = (options: Options): (request: HttpServerRequest.HttpServerRequest) => string => {
  if (options.publicUrl === undefined) return (request) => `http://${request.headers["host"] ?? ""}`
  let origin: string
  try {
    origin = new URL(options.publicUrl).origin
  } catch {
    // validated at start (ServeOptions); an embedder's bad value allows no Origin at all
    origin = "null"
  }
  return () => origin
}

export const secure = (options: Options): boolean => options.publicUrl?.startsWith("https:") === true

/** The session token in the request's cookie, if any. */
export const token = (request: HttpServerRequest.HttpServerRequest): string | undefined => request.cookies[Session.cookieName]

/** What the CSRF rule reads from the request. */
export const origin = (request: HttpServerRequest.HttpServerRequest): Session.RequestOrigin => ({
  method: request.method,
  csrfToken: request.headers[Session.csrfHeader],
  origin: request.headers["origin"]
})

/** Sets the cookie on the response (a pre-response handler: the endpoint's encoded body is kept). */
export const set = (options: Options, value: string, maxAgeMs: number) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.orDie(HttpServerResponse.setCookie(response, Session.cookieName, value, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: secure(options),
      maxAge: `${Math.max(0, Math.floor(maxAgeMs / 1000))} seconds`
    }))
  )

/** Clears the cookie (an empty value that expires at once). */
export const clear = (options: Options) => set(options, "", 0)
