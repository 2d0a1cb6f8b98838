/**
 * A typed client of `/api/v1`, made from the one `Api` definition (so a call's path, parameters,
 * body and answers are the server's own), for Node and the browser. Auth is an API key
 * (`x-api-key`, automation) or the browser's session cookie (the console), whose unsafe requests
 * carry the session's CSRF token in `x-csrf-token`.
 */
import * as Effect from "effect/Effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "./api/Api.js"

export interface Options {
  /** Where the service answers, e.g. `https://policy.example.com`; omitted: the page's own origin (browser). */
  readonly baseUrl?: string | URL | undefined
  /** Automation: send this key as `x-api-key` on every request. */
  readonly apiKey?: string | undefined
  /**
   * Session cookie auth (browser): the CSRF token of the current session, read at each request
   * (it changes when the user signs in again). Sent on every method but GET, HEAD and OPTIONS.
   */
  readonly csrfToken?: (() => string | undefined) | undefined
}

const safeMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

const withAuth = (options: Options) => (request: HttpClientRequest.HttpClientRequest): HttpClientRequest.HttpClientRequest => {
  let authed = options.apiKey === undefined ? request : HttpClientRequest.setHeader(request, "x-api-key", options.apiKey)
  const csrf = options.csrfToken?.()
  if (csrf !== undefined && !safeMethods.has(request.method)) authed = HttpClientRequest.setHeader(authed, "x-csrf-token", csrf)
  return authed
}

/** The client's type: one property per API group, one method per endpoint (`client.webhooks.listWebhooks(...)`). */
export type Client = Effect.Success<ReturnType<typeof makeEffect>>

const makeEffect = (options: Options) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(withAuth(options))
  })

/** The client as an Effect needing an `HttpClient` (provide `FetchHttpClient.layer` or a test client). */
export const make = (options: Options = {}) => makeEffect(options)

/** The client over the platform's `fetch` (Node 18+, Deno, browsers). */
export const makeFetch = (options: Options = {}) => Effect.provide(makeEffect(options), FetchHttpClient.layer)
