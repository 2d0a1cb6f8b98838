/**
 * Provider push webhooks (api/VcsEvents.ts). Checks, first failure wins: 413 (body over the
 * limit) -> 401 (unknown connection, a connection of the other provider, no webhook secret
 * configured, missing or wrong signature or token) -> 400 (not JSON, not a push event of the
 * provider's shape) -> 401 (a delivery id seen in the last 10 minutes, a GitHub push older than
 * 5 minutes). Only then does the core decide which external phases the push concerns
 * (`MappingsFile.phasesTouchedByPush`) and sync them (`Workflows.Sync.syncPushed`).
 *
 * The secret is compared in constant time (WebCrypto HMAC verify; SHA-256 digests for GitLab's
 * token) and is never logged or answered. A sealed secret is opened through the `SecretBox` for
 * each delivery and not kept; one that cannot be opened (another `IMAGE_POLICY_SECRET_KEY`) refuses
 * the push like a missing secret, and the log says why without the value. Delivery ids are remembered per process: several hosts
 * behind one address each refuse the replays they see, and a replay another host accepts only
 * repeats an idempotent sync.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { FixtureVcs, VcsHttp } from "@image-policy/adapters"
import { type Id, type MappingsFile, SecretBox, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Api } from "../api/Api.js"
import * as Problems from "../http/Problems.js"
import * as RequestInfo from "../http/RequestInfo.js"

/** No valid signature: unknown connection, other provider, no secret configured, missing or wrong signature. */
export class PushNotAuthenticated extends Schema.TaggedError<PushNotAuthenticated>()("PushNotAuthenticated", {}) {}
/** The delivery id was already received recently. */
export class PushReplayed extends Schema.TaggedError<PushReplayed>()("PushReplayed", {}) {}
/** The push happened too long ago to be a fresh delivery. */
export class PushStale extends Schema.TaggedError<PushStale>()("PushStale", {}) {}

type Provider = "github" | "gitlab"

/** How long a delivery id is remembered, and the age beyond which a push with a timestamp is refused. */
export const replayWindowMs = 10 * 60_000
export const maxPushAgeMs = 5 * 60_000
const rememberedDeliveries = 10_000

/**
 * The connection's webhook secret: the fixture's own, or for an API connection the sealed one
 * opened now, else the value of the variable it names. `undefined` when there is none to check
 * against (the push is refused then).
 */
const secretOf = (settings: unknown, env: VcsHttp.Env, connectionId: string) =>
  Effect.gen(function*() {
    const decoded = Schema.decodeUnknownOption(FixtureVcs.ConnectionSettings)(settings)
    if (Option.isNone(decoded)) return undefined
    const s = decoded.value
    let secret: string | undefined
    if (s.kind === "fixture") secret = s.webhookSecret
    else if (s.sealedWebhookSecret !== undefined) {
      const box = yield* SecretBox
      secret = yield* box.open(s.sealedWebhookSecret).pipe(
        Effect.catchAll((e) =>
          Effect.as(
            Effect.logWarning("provider push webhook secret unavailable").pipe(
              Effect.annotateLogs({ connectionId, reason: `sealed-webhook-secret-${e.reason}` })
            ),
            undefined
          )
        )
      )
    } else secret = s.webhookSecretEnv === undefined ? undefined : env(s.webhookSecretEnv)
    return secret === undefined || secret === "" ? undefined : secret
  })

const encoder = new TextEncoder()

const hexBytes = (hex: string): Uint8Array<ArrayBuffer> | undefined => {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined
  const bytes = new Uint8Array(32)
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** GitHub: `sha256=<hex>` is the HMAC-SHA256 of the exact body bytes; WebCrypto's verify compares in constant time. */
const verifyGithub = (secret: string, body: Uint8Array<ArrayBuffer>, header: string | undefined) =>
  Effect.promise(async () => {
    const signature = header?.startsWith("sha256=") ? hexBytes(header.slice("sha256=".length)) : undefined
    if (signature === undefined) return false
    const key = await globalThis.crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
    return globalThis.crypto.subtle.verify("HMAC", key, signature, body)
  })

/** GitLab: the token itself; compared as SHA-256 digests so neither its length nor its content leaks through timing. */
const verifyGitlab = (secret: string, header: string | undefined) =>
  Effect.promise(async () => {
    if (header === undefined) return false
    const [a, b] = await Promise.all([secret, header].map((t) => globalThis.crypto.subtle.digest("SHA-256", encoder.encode(t))))
    const x = new Uint8Array(a!)
    const y = new Uint8Array(b!)
    let difference = 0
    for (let i = 0; i < x.length; i++) difference |= x[i]! ^ y[i]!
    return difference === 0
  })

// Push payloads, reduced to what decides which phases a push concerns ---------------------------

const Paths = Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
const Commit = Schema.Struct({ added: Paths, modified: Paths, removed: Paths })
const zeroSha = /^0+$/

const GithubPush = Schema.Struct({
  ref: Schema.String,
  after: Schema.optional(Schema.String),
  created: Schema.optional(Schema.Boolean),
  deleted: Schema.optional(Schema.Boolean),
  forced: Schema.optional(Schema.Boolean),
  repository: Schema.Struct({
    full_name: Schema.String,
    // GitHub sends the push time as Unix seconds in push events
    pushed_at: Schema.optional(Schema.Union(Schema.Number, Schema.String, Schema.Null))
  }),
  commits: Schema.optional(Schema.Array(Commit))
})

const GitlabPush = Schema.Struct({
  ref: Schema.String,
  before: Schema.optional(Schema.String),
  after: Schema.optional(Schema.String),
  project: Schema.Struct({ path_with_namespace: Schema.String }),
  commits: Schema.optional(Schema.Array(Commit)),
  total_commits_count: Schema.optional(Schema.Number)
})

/** GitHub lists at most 20 commits per push event in some deliveries; GitLab at most 20: a full list is shorter. */
const listedCommitsLimit = 20

const changedPaths = (commits: ReadonlyArray<typeof Commit.Type>): ReadonlyArray<string> =>
  commits.flatMap((c) => [...c.added, ...c.modified, ...c.removed])

interface ParsedPush {
  readonly push: MappingsFile.Push
  /** When the provider says the push happened (epoch ms), if it does. */
  readonly pushedAt: number | undefined
}

const parsePush = (provider: Provider, json: unknown): Either.Either<ParsedPush, ParseResult.ParseError> => {
  if (provider === "github") {
    return Either.map(Schema.decodeUnknownEither(GithubPush, { errors: "all" })(json), (p) => {
      const complete = p.commits !== undefined && p.commits.length < listedCommitsLimit && p.created !== true &&
        p.deleted !== true && p.forced !== true && !(p.after !== undefined && zeroSha.test(p.after))
      const at = p.repository.pushed_at
      const pushedAt = typeof at === "number" ? at * 1000 : typeof at === "string" && at !== "" ? Date.parse(at) : undefined
      return {
        push: { repositoryFullName: p.repository.full_name, ref: p.ref, changedPaths: complete ? changedPaths(p.commits!) : null },
        pushedAt: pushedAt !== undefined && Number.isFinite(pushedAt) ? pushedAt : undefined
      }
    })
  }
  return Either.map(Schema.decodeUnknownEither(GitlabPush, { errors: "all" })(json), (p) => {
    const listed = p.commits?.length ?? 0
    const complete = p.commits !== undefined && (p.total_commits_count === undefined || p.total_commits_count <= listed) &&
      !(p.before !== undefined && zeroSha.test(p.before)) && !(p.after !== undefined && zeroSha.test(p.after))
    return {
      push: { repositoryFullName: p.project.path_with_namespace, ref: p.ref, changedPaths: complete ? changedPaths(p.commits!) : null },
      pushedAt: undefined
    }
  })
}

const formatPath = (path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>((acc, s) => typeof s === "number" ? `${acc}[${s}]` : acc === "" ? String(s) : `${acc}.${String(s)}`, "") || "(body)"

// The handler ----------------------------------------------------------------------------------

export interface Options {
  readonly maxBodyBytes: number
  /** Reads `webhookSecretEnv` variables; default `process.env` where there is one. */
  readonly env?: VcsHttp.Env
}

const tooLarge = (limit: number) =>
  Problems.make({ status: 413, type: "/problems/body-too-large", detail: `request bodies are limited to ${limit} bytes` })

/** The exact body bytes (the signature covers them), bounded by the body limit. */
const readBody = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function*() {
    const declared = request.headers["content-length"]
    if (declared !== undefined && Number(declared) > limit) return yield* Effect.fail(tooLarge(limit))
    const buffer = yield* request.arrayBuffer.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
      Effect.catchAll((error) =>
        Effect.fail(
          String((error as { cause?: { message?: unknown } }).cause?.message ?? "").includes("maxBytes")
            ? tooLarge(limit)
            : Problems.make({ status: 400, type: "/problems/unreadable-body", detail: "the request body could not be read" })
        )
      )
    )
    const bytes = new Uint8Array(buffer)
    if (bytes.length > limit) return yield* Effect.fail(tooLarge(limit))
    return bytes
  })

export const VcsEventsHandlers = (options: Options) =>
  HttpApiBuilder.group(Api, "vcsEvents", (handlers) => {
    const env = options.env ?? VcsHttp.defaultEnv
    /** `connectionId|deliveryId` -> when it may be received again (epoch ms); oldest first. */
    const seen = new Map<string, number>()

    /** Remembers a delivery; false when it was already received inside the window. */
    const firstDelivery = (key: string, now: number): boolean => {
      for (const [k, until] of seen) {
        if (until > now && seen.size < rememberedDeliveries) break
        seen.delete(k)
      }
      const until = seen.get(key)
      if (until !== undefined && until > now) return false
      seen.delete(key)
      seen.set(key, now + replayWindowMs)
      return true
    }

    const receive = (provider: Provider, connectionId: string, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const info = RequestInfo.get(request)
        if (info) info.route = `/api/v1/vcs-events/${provider}/:connectionId`
        const body = yield* readBody(request, options.maxBodyBytes)
        const headers = request.headers

        const located = yield* Workflows.Sync.locateConnection(connectionId as Id.VcsConnectionId)
        const connection = Option.getOrUndefined(located)
        const secret = connection === undefined || connection.connection.provider !== provider
          ? undefined
          : yield* secretOf(connection.settings, env, connectionId)
        const signed = secret === undefined
          ? false
          : provider === "github"
          ? yield* verifyGithub(secret, body, headers["x-hub-signature-256"])
          : yield* verifyGitlab(secret, headers["x-gitlab-token"])
        if (!signed || connection === undefined) {
          yield* Effect.logWarning("provider push refused").pipe(Effect.annotateLogs({ provider, connectionId, reason: "signature" }))
          return yield* new PushNotAuthenticated()
        }

        const event = provider === "github" ? headers["x-github-event"] : headers["x-gitlab-event"]
        const isPush = provider === "github" ? event === "push" : event === "Push Hook"
        const deliveryId = provider === "github"
          ? headers["x-github-delivery"]
          : headers["x-gitlab-event-uuid"] ?? headers["idempotency-key"]
        const now = yield* Clock.currentTimeMillis
        // GitHub always names its deliveries: one without an id cannot be told from a replay
        if (provider === "github" && (deliveryId === undefined || deliveryId === "")) return yield* new PushReplayed()

        let parsed: ParsedPush | undefined
        if (isPush) {
          let json: unknown
          try {
            json = JSON.parse(new TextDecoder().decode(body))
          } catch {
            return yield* Effect.fail(Problems.make({
              status: 400,
              type: "/problems/malformed-json",
              detail: "the push event is not JSON; set the webhook's content type to application/json"
            }))
          }
          const decoded = parsePush(provider, json)
          if (Either.isLeft(decoded)) {
            return yield* Effect.fail(Problems.validation(
              ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({ path: formatPath(i.path), message: i.message.replace(/,\s*actual\b[\s\S]*$/, "") })),
              "the push event does not have the provider's shape; see errors"
            ))
          }
          parsed = decoded.right
          if (parsed.pushedAt !== undefined && now - parsed.pushedAt > maxPushAgeMs) return yield* new PushStale()
        }
        if (deliveryId !== undefined && deliveryId !== "" && !firstDelivery(`${connectionId}|${deliveryId}`, now)) {
          return yield* new PushReplayed()
        }
        if (parsed === undefined) return { synced: [] }

        const synced = yield* Workflows.Sync.syncPushed(
          {
            orgId: connection.orgId,
            actor: { kind: "system", name: `${provider}-push` },
            correlationId: info?.id ?? ""
          },
          connection.connection.id,
          parsed.push
        )
        return { synced }
      }).pipe(
        Problems.orProblem,
        Effect.map((answer) => HttpServerResponse.unsafeJson(answer, { status: 202 }))
      )

    return handlers
      .handleRaw("githubPushEvent", ({ path, request }) => receive("github", path.connectionId, request))
      .handleRaw("gitlabPushEvent", ({ path, request }) => receive("gitlab", path.connectionId, request))
  })
