/**
 * HTTP plumbing shared by the GitHub and GitLab adapters: one request with a per-request time
 * limit over an injectable `fetch`, same-origin pagination and redirects only, and the mapping of
 * a provider's answer to a `VcsProviderError` (no provider text and no token ever leave here).
 *
 * The token lives only in the closure of a `Client`: it is not a property, so logging a client,
 * a request or an error cannot print it. Requests never follow a link or a redirect to another
 * origin, so the token is only ever sent to the configured base URL's origin.
 */
import { Text, VcsProviderError, VcsWriteRejected } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/** The platform `fetch` (`globalThis.fetch` on Node and Deno), injectable for tests. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>

/** Reads an environment variable; injectable so tests and Deno need no real environment. */
export type Env = (name: string) => string | undefined

/** `process.env` where there is one (Node, Deno 2). Deno without `--allow-env` throws: that reads as unset. */
export const defaultEnv: Env = (name) => {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]
    return typeof value === "string" ? value : undefined
  } catch {
    return undefined
  }
}

export type ProviderKind = "github" | "gitlab"

/**
 * A write the provider refused (remediation only): the core's error, re-exported so adapter
 * callers need one import. `conflict` when the branch or file changed since it was read,
 * `forbidden` when the token may not write, `invalid` for any other refusal.
 */
export { VcsWriteRejected }

export interface ClientOptions {
  /** `https://api.github.com`, `https://ghe.example.com/api/v3`, `https://gitlab.com/api/v4`, ... */
  readonly baseUrl: string
  readonly token: string
  /** Default `globalThis.fetch`. */
  readonly fetch?: Fetch
  /** Per request, including reading the body. Default 10 s. */
  readonly timeoutMs?: number
  /** Wall clock in epoch milliseconds; default the Effect `Clock` (so `TestClock` drives it). */
  readonly now?: () => number
  /** Default `image-policy`. */
  readonly userAgent?: string
  /** Pages followed before giving up as `unavailable`. Default 200 (20 000 items at 100 a page); repository trees allow ten times as many. */
  readonly maxPages?: number
}

export interface Request {
  readonly method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH"
  /** Below the base URL, already percent-encoded, starting with `/`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string>>
  readonly body?: unknown
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** Parsed JSON, or `undefined` when the body is empty or not JSON. */
  readonly body: unknown
}

export interface Client {
  readonly provider: ProviderKind
  /** The base URL without a trailing slash. */
  readonly baseUrl: string
  /** The current time in epoch milliseconds, from the options' `now` or the Effect clock. */
  readonly now: Effect.Effect<number>
  readonly maxPages: number
  /** One request: any HTTP status is an answer; a network failure or the time limit is `unavailable`. */
  readonly exchange: (request: Request) => Effect.Effect<Answer, VcsProviderError>
  /** A GET of an absolute URL (a pagination link); refused as `unavailable` on another origin. */
  readonly exchangeUrl: (url: string) => Effect.Effect<Answer, VcsProviderError>
}

const unavailable = () => new VcsProviderError({ reason: "unavailable" })

/** `undefined` when the base URL is not an absolute http(s) URL without credentials, query or fragment. */
export const normalizeBaseUrl = (baseUrl: string): string | undefined => {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return undefined
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined
  return url.href.replace(/\/+$/, "")
}

const maxRedirects = 3

/** A client bound to one base URL and token; `undefined` when the base URL is unusable. */
export const makeClient = (
  provider: ProviderKind,
  options: ClientOptions,
  authHeaders: (token: string) => Record<string, string>,
  extraHeaders: Record<string, string> = {}
): Client | undefined => {
  const baseUrl = normalizeBaseUrl(options.baseUrl)
  if (baseUrl === undefined) return undefined
  const origin = new URL(baseUrl).origin
  const doFetch: Fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init))
  const timeout = Duration.millis(options.timeoutMs ?? 10_000)
  const headers = {
    accept: "application/json",
    "user-agent": options.userAgent ?? "image-policy",
    ...extraHeaders,
    ...authHeaders(options.token)
  }
  const now = options.now === undefined ? Clock.currentTimeMillis : Effect.sync(options.now)

  const send = (url: string, method: Request["method"], body: unknown): Effect.Effect<Answer, VcsProviderError> =>
    Effect.tryPromise({
      try: async (signal) => {
        let target = url
        for (let hop = 0;; hop++) {
          const response = await doFetch(target, {
            method,
            headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            // redirects are followed below, and only within the base URL's origin (the token
            // header must never reach another host)
            redirect: "manual",
            signal
          })
          const location = response.headers.get("location")
          if (response.status >= 300 && response.status < 400 && location !== null) {
            await response.body?.cancel()
            const next = new URL(location, target)
            if (method !== "GET" || hop >= maxRedirects || next.origin !== origin) throw unavailable()
            target = next.href
            continue
          }
          const text = await response.text()
          let parsed: unknown = undefined
          if (text.length > 0) {
            try {
              parsed = JSON.parse(text)
            } catch {
              parsed = undefined
            }
          }
          return { status: response.status, headers: response.headers, body: parsed }
        }
      },
      // whatever the platform threw (it may name the URL): only the reason goes on
      catch: unavailable
    }).pipe(Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail(unavailable()) }))

  return {
    provider,
    baseUrl,
    now,
    maxPages: options.maxPages ?? 200,
    exchange: (request) => {
      const query = request.query === undefined ? "" : `?${new URLSearchParams(request.query).toString()}`
      return send(`${baseUrl}${request.path}${query}`, request.method, request.body)
    },
    exchangeUrl: (url) => {
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        return Effect.fail(unavailable())
      }
      return parsed.origin === origin ? send(parsed.href, "GET", undefined) : Effect.fail(unavailable())
    }
  }
}

// ---------------------------------------------------------------------------------------------
// What answers may hold
//
// Whatever the adapters read from an answer ends up in a store (a file's version, a scan's commit,
// an onboarded repository's names, a remediation request's number and URL) or in a URL of a later
// request. PostgreSQL refuses NUL and (in jsonb) lone surrogates, which the memory store accepts,
// and `encodeURIComponent` throws on a lone surrogate: such text is refused here, when decoding.

/**
 * A git object id (commit, tree or blob) as both providers spell it: lowercase hex, SHA-1 (40) or
 * SHA-256 (64 digits). The core compares it with the one it stored, so a malformed id fails the
 * answer (`unavailable`); it is never rewritten into something storable.
 */
export const GitObjectId = Schema.String.check(Schema.isPattern(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/))

/** A repository's or project's provider id when it comes as text (GitHub and GitLab send numbers). */
export const RepositoryIdText = Text.StorableString.check(Schema.isNonEmpty(), Schema.isMaxLength(255))

/** `owner/repo`, or a GitLab `path_with_namespace` with nested groups. */
export const RepositoryName = Text.StorableString.check(Schema.isNonEmpty(), Schema.isMaxLength(1024))

/** A branch name: at most what the core accepts in an onboarding request (`Onboarding.BranchName`). */
export const BranchName = Text.StorableString.check(Schema.isNonEmpty(), Schema.isMaxLength(255))

/** A file path in a tree. */
export const FilePath = Text.StorableString.check(Schema.isNonEmpty())

/** A pull or merge request number (GitHub's `number`, GitLab's `iid`): the core stores an integer. */
export const RequestNumber = Schema.Int.check(Schema.isGreaterThan(0))

// ---------------------------------------------------------------------------------------------
// Answers to errors

/** The longest wait we accept from a provider's headers (GitHub's window is one hour). */
const maxRetryAfterSeconds = 3600
/** When a provider says "slow down" without saying for how long. */
export const defaultRetryAfterSeconds = 60

const clampSeconds = (seconds: number) => Math.min(maxRetryAfterSeconds, Math.max(1, Math.ceil(seconds)))

/** `Retry-After` as delta seconds or an HTTP date; `undefined` when absent or unreadable. */
export const parseRetryAfter = (value: string | null, nowMs: number): number | undefined => {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return clampSeconds(Number(trimmed))
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : clampSeconds((date - nowMs) / 1000)
}

/** Seconds until an epoch-seconds reset header; `undefined` when absent or unreadable. */
export const secondsUntilReset = (value: string | null, nowMs: number): number | undefined => {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined
  return clampSeconds(Number(value.trim()) - nowMs / 1000)
}

const messageOf = (body: unknown): string =>
  typeof body === "object" && body !== null && typeof (body as { message?: unknown }).message === "string"
    ? (body as { message: string }).message
    : ""

/**
 * The seconds to wait when an answer says "slow down", else `undefined`. GitHub: `retry-after`,
 * or `x-ratelimit-remaining: 0` with `x-ratelimit-reset`, or a secondary-limit message (wait a
 * minute, as GitHub's docs advise). GitLab: `retry-after`, or `ratelimit-remaining: 0` with
 * `ratelimit-reset`. A 429 always means slow down.
 */
export const rateLimitSeconds = (provider: ProviderKind, answer: Answer, nowMs: number): number | undefined => {
  if (answer.status !== 403 && answer.status !== 429) return undefined
  const retryAfter = parseRetryAfter(answer.headers.get("retry-after"), nowMs)
  if (retryAfter !== undefined) return retryAfter
  const prefix = provider === "github" ? "x-ratelimit-" : "ratelimit-"
  if (answer.headers.get(`${prefix}remaining`)?.trim() === "0") {
    return secondsUntilReset(answer.headers.get(`${prefix}reset`), nowMs) ?? defaultRetryAfterSeconds
  }
  if (answer.status === 429) return defaultRetryAfterSeconds
  if (provider === "github" && /rate limit/i.test(messageOf(answer.body))) return defaultRetryAfterSeconds
  return undefined
}

/**
 * The error for an answer that is not a success. 401, and a 403 that is not a rate limit
 * ("Bad credentials", a token without the scope, an SSO block), are `unauthorized`; 404 and 410
 * `not-found`; everything else (5xx, unexpected 3xx or 4xx) `unavailable`.
 */
export const classify = (provider: ProviderKind, answer: Answer, nowMs: number): VcsProviderError => {
  if (answer.status === 401) return new VcsProviderError({ reason: "unauthorized" })
  if (answer.status === 403 && /bad credentials/i.test(messageOf(answer.body))) {
    return new VcsProviderError({ reason: "unauthorized" })
  }
  const wait = rateLimitSeconds(provider, answer, nowMs)
  if (wait !== undefined) return new VcsProviderError({ reason: "rate-limited", retryAfterSeconds: wait })
  if (answer.status === 403) return new VcsProviderError({ reason: "unauthorized" })
  if (answer.status === 404 || answer.status === 410) return new VcsProviderError({ reason: "not-found" })
  return unavailable()
}

export const isSuccess = (answer: Answer) => answer.status >= 200 && answer.status < 300

/** Fails with the classified error unless the answer is a success. */
export const ensureSuccess = (client: Client) => (answer: Answer): Effect.Effect<Answer, VcsProviderError> =>
  isSuccess(answer) ? Effect.succeed(answer) : Effect.flatMap(client.now, (now) => Effect.fail(classify(client.provider, answer, now)))

/**
 * For writes: a refusal of the content (409, 422, GitLab's 400) is `VcsWriteRejected`, `conflict`
 * when the provider says the thing already exists or changed meanwhile; a 403 that is neither a
 * rate limit nor bad credentials is `forbidden` (the token may read but not write: a missing scope
 * or role, a protected branch). Bad credentials, rate limits and availability are classified as for reads.
 */
export const ensureWritten = (client: Client) => (answer: Answer): Effect.Effect<Answer, VcsProviderError | VcsWriteRejected> => {
  if (answer.status === 400 || answer.status === 409 || answer.status === 422) {
    const conflict = answer.status === 409 ||
      /already exists|has (been )?(changed|modified|updated)|does not match|sha wasn't supplied|is at .* but expected/i.test(
        messageOf(answer.body)
      )
    return Effect.fail(new VcsWriteRejected({ reason: conflict ? "conflict" : "invalid", status: answer.status }))
  }
  if (answer.status === 403) {
    return Effect.flatMap(client.now, (now): Effect.Effect<never, VcsProviderError | VcsWriteRejected> => {
      const error = classify(client.provider, answer, now)
      return error.reason === "unauthorized" && !/bad credentials/i.test(messageOf(answer.body))
        ? Effect.fail(new VcsWriteRejected({ reason: "forbidden", status: 403 }))
        : Effect.fail(error)
    })
  }
  return ensureSuccess(client)(answer)
}

/** A request whose answer must be a success, decoded with a schema (a malformed answer is `unavailable`). */
export const getJson = <A, I>(client: Client, schema: Schema.Codec<A, I>, request: Request) =>
  client.exchange(request).pipe(Effect.flatMap(ensureSuccess(client)), Effect.flatMap((answer) => decode(schema, answer.body)))

export const decode = <A, I>(schema: Schema.Codec<A, I>, body: unknown): Effect.Effect<A, VcsProviderError> =>
  Result.match(Schema.decodeUnknownResult(schema)(body), {
    onFailure: () => Effect.fail(unavailable()),
    onSuccess: Effect.succeed
  })

/**
 * The entries of a listing (a JSON array). The answer must be an array whose every entry has
 * `shape` (else `unavailable`, like any malformed answer); an entry of that shape which `entry`
 * refuses (a name no store can hold, or too long to be one) is left out, so one such entry does
 * not hide the others. Without `shape`, every entry must satisfy `entry`.
 */
export const decodeEntries = <A, I, S, SI>(
  entry: Schema.Codec<A, I>,
  shape: Schema.Codec<S, SI> | undefined,
  body: unknown
): Effect.Effect<ReadonlyArray<A>, VcsProviderError> => {
  if (!Array.isArray(body)) return Effect.fail(unavailable())
  const decodeEntry = Schema.decodeUnknownResult(entry)
  const decodeShape = shape === undefined ? undefined : Schema.decodeUnknownResult(shape)
  const hasShape = (item: unknown) => decodeShape !== undefined && Result.isSuccess(decodeShape(item))
  const kept: Array<A> = []
  for (const item of body) {
    const decoded = decodeEntry(item)
    if (Result.isSuccess(decoded)) kept.push(decoded.success)
    else if (!hasShape(item)) return Effect.fail(unavailable())
  }
  return Effect.succeed(kept)
}

/**
 * All pages of a list: `first` fetches page one, `next` names the following page from an answer
 * (or `undefined` on the last). Fails `unavailable` past `maxPages` (default `client.maxPages`).
 */
export const collectPages = <A>(
  client: Client,
  first: Effect.Effect<Answer, VcsProviderError>,
  fetchNext: (answer: Answer) => Effect.Effect<Answer, VcsProviderError> | undefined,
  items: (answer: Answer) => Effect.Effect<ReadonlyArray<A>, VcsProviderError>,
  maxPages: number = client.maxPages
): Effect.Effect<ReadonlyArray<A>, VcsProviderError> =>
  Effect.gen(function*() {
    const all: Array<A> = []
    let answer = yield* Effect.flatMap(first, ensureSuccess(client))
    for (let page = 1;; page++) {
      all.push(...(yield* items(answer)))
      const next = fetchNext(answer)
      if (next === undefined) return all
      if (page >= maxPages) return yield* Effect.fail(unavailable())
      answer = yield* Effect.flatMap(next, ensureSuccess(client))
    }
  })

/** The `rel="next"` target of an RFC 8288 `Link` header. */
export const nextLink = (link: string | null): string | undefined => {
  if (link === null) return undefined
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*((?:;[^;]*)*)$/.exec(part)
    if (match === null) continue
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;"]+))/i.exec(match[2] ?? "")
    const relValue = rels?.[1] ?? rels?.[2] ?? ""
    if (relValue.toLowerCase().split(/\s+/).includes("next")) return match[1]
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Paths and contents

/**
 * The segments of a repository path or file path, or `undefined` when one is empty, `.` or `..`
 * (such a path could climb out of the resource once normalized by a URL parser), or holds text no
 * store can hold (NUL, a lone surrogate: `encodeURIComponent` throws on the latter, and no provider
 * names anything with either).
 */
export const safeSegments = (path: string): ReadonlyArray<string> | undefined => {
  const segments = path.split("/")
  return segments.every((s) => s !== "" && s !== "." && s !== ".." && Text.isStorableText(s)) ? segments : undefined
}

/** Percent-encodes every segment, keeping the slashes. */
export const encodeSegments = (segments: ReadonlyArray<string>) => segments.map(encodeURIComponent).join("/")

/** Percent-encodes a whole path as one segment (`/` as `%2F`, `.` as `%2E`), as GitLab wants ids and file paths. */
export const encodeWhole = (path: string) => encodeURIComponent(path).replace(/\./g, "%2E")

const bomKeepingDecoder = new TextDecoder("utf-8", { ignoreBOM: true })

/**
 * UTF-8 text of base64 (line breaks allowed, as GitHub sends them). A leading byte-order mark is
 * kept: the text is rewritten and committed back, and must come back with the bytes it had.
 */
export const decodeBase64Text = (base64: string): string | undefined => {
  try {
    const binary = atob(base64.replace(/\s+/g, ""))
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bomKeepingDecoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** Base64 of the UTF-8 bytes of a text. */
export const encodeBase64Text = (text: string): string => {
  const bytes = new TextEncoder().encode(text)
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}
