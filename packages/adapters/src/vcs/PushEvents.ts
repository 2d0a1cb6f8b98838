/**
 * Provider webhooks, as GitHub and GitLab send them: which headers name the event and the
 * delivery, how a delivery is signed, what of a push event decides which external phases it
 * concerns, and what of a pull/merge request event tells that the provider merged a request. The
 * host's handler (handlers/VcsEvents.ts) reads the body, asks this module, and hands the delivery
 * to the core (`Workflows.PushEvents.receive`: staleness, replay, then sync or merge).
 *
 * Secrets are compared in constant time (WebCrypto HMAC verify; SHA-256 digests for GitLab's token)
 * and are never logged or answered; a sealed secret is opened for one delivery and not kept.
 */
import { SecretBox, type Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as ConnectionSecrets from "./ConnectionSecrets.js"
import * as Fixture from "./Fixture.js"
import type * as ProviderHttp from "./ProviderHttp.js"

export type Provider = "github" | "gitlab"

type Headers = Readonly<Record<string, string | undefined>>

/** What the headers say of a provider's event delivery. */
export interface ProviderDelivery {
  /** Whether it is a push event. */
  readonly isPush: boolean
  /** Whether it is a pull/merge request event (GitHub `pull_request`, GitLab `Merge Request Hook`); others are acknowledged and ignored. */
  readonly isRequest: boolean
  /** The provider's id of this delivery, if it sent one (replays repeat it). */
  readonly deliveryId: string | undefined
  /** GitHub always names its deliveries: one without an id cannot be told from a replay. */
  readonly idRequired: boolean
}

export const deliveryOf = (provider: Provider, headers: Headers): ProviderDelivery => {
  if (provider === "github") {
    const id = headers["x-github-delivery"]
    const event = headers["x-github-event"]
    return { isPush: event === "push", isRequest: event === "pull_request", deliveryId: id === "" ? undefined : id, idRequired: true }
  }
  const id = headers["x-gitlab-event-uuid"] ?? headers["idempotency-key"]
  const event = headers["x-gitlab-event"]
  return {
    isPush: event === "Push Hook",
    isRequest: event === "Merge Request Hook",
    deliveryId: id === "" ? undefined : id,
    idRequired: false
  }
}

/**
 * The connection's webhook secret: the fixture's own, or for an API connection the sealed one
 * opened now, else the value of the variable it names. `undefined` when there is none to check
 * against (the push is refused then); a sealed one that cannot be opened (another
 * `IMAGE_POLICY_SECRET_KEY`) is logged with the reason, never the value.
 */
export const webhookSecretOf = (
  settings: unknown,
  env: ProviderHttp.Env,
  connectionId: string
): Effect.Effect<string | undefined> =>
  Option.match(Schema.decodeUnknownOption(Fixture.ConnectionSettings)(settings), {
    onNone: () => Effect.succeed(undefined),
    onSome: (s) => {
      if (s.kind === "fixture") return Effect.succeed(s.webhookSecret === "" ? undefined : s.webhookSecret)
      return Effect.flatMap(Effect.serviceOption(SecretBox), (box) =>
        Effect.flatMap(
          ConnectionSecrets.read(
            "webhook-secret",
            { sealed: s.sealedWebhookSecret, envName: s.webhookSecretEnv },
            env,
            Option.getOrUndefined(box)
          ),
          (read) => {
            if (read._tag === "Found") return Effect.succeed(read.value)
            if (read.reason === "not-configured" || read.reason === "empty") return Effect.succeed(undefined)
            return Effect.as(
              Effect.logWarning("provider push webhook secret unavailable").pipe(
                Effect.annotateLogs({ connectionId, reason: read.reason })
              ),
              undefined
            )
          }
        ))
    }
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
    const key = await globalThis.crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "verify"
    ])
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

/** Whether the delivery carries the provider's proof that it was sent with `secret`. */
export const verify = (provider: Provider, secret: string, body: Uint8Array<ArrayBuffer>, headers: Headers): Effect.Effect<boolean> =>
  provider === "github" ? verifyGithub(secret, body, headers["x-hub-signature-256"]) : verifyGitlab(secret, headers["x-gitlab-token"])

/**
 * Whether the delivery is signed with the webhook secret of `located`, a connection of `provider`:
 * false for no connection, a connection of the other provider, or one without a secret.
 */
export const isSignedFor = (
  provider: Provider,
  located: { readonly connection: { readonly id: string; readonly provider: string }; readonly settings: unknown } | undefined,
  env: ProviderHttp.Env,
  body: Uint8Array<ArrayBuffer>,
  headers: Headers
): Effect.Effect<boolean> => {
  if (located === undefined || located.connection.provider !== provider) return Effect.succeed(false)
  return Effect.flatMap(
    webhookSecretOf(located.settings, env, located.connection.id),
    (secret) => secret === undefined ? Effect.succeed(false) : verify(provider, secret, body, headers)
  )
}

// Push payloads, reduced to what decides which phases a push concerns ---------------------------
// Decoded only, never encoded: `optional` (key absent or `undefined`) reads as Effect 3's did.

const Paths = Schema.Array(Schema.String).pipe(Schema.withDecodingDefaultType(Effect.succeed([])))
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
    pushed_at: Schema.optional(Schema.Union([Schema.Number, Schema.String, Schema.Null]))
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

/** GitHub and GitLab list at most 20 commits in a push event: only a shorter list is known complete. */
const listedCommitsLimit = 20

const changedPaths = (commits: ReadonlyArray<typeof Commit.Type>): ReadonlyArray<string> =>
  commits.flatMap((c) => [...c.added, ...c.modified, ...c.removed])

/** What the core receives of a push; `push.changedPaths` is null when the event may not list every changed file (new, deleted or forced branch, long push). */
export type ParsedPush = Workflows.PushEvents.ReceivedPush

/** A push event's JSON in the provider's shape, or the schema's error (its paths name the bad fields). */
export const parsePush = (provider: Provider, json: unknown): Result.Result<ParsedPush, Schema.SchemaError> => {
  if (provider === "github") {
    return Result.map(Schema.decodeUnknownResult(GithubPush, { errors: "all" })(json), (p) => {
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
  return Result.map(Schema.decodeUnknownResult(GitlabPush, { errors: "all" })(json), (p) => {
    const listed = p.commits?.length ?? 0
    const complete = p.commits !== undefined && (p.total_commits_count === undefined || p.total_commits_count <= listed) &&
      !(p.before !== undefined && zeroSha.test(p.before)) && !(p.after !== undefined && zeroSha.test(p.after))
    return {
      push: { repositoryFullName: p.project.path_with_namespace, ref: p.ref, changedPaths: complete ? changedPaths(p.commits!) : null },
      pushedAt: undefined
    }
  })
}

// Pull/merge request payloads, reduced to what tells a merge and which request it was ------------

const ProviderTime = Schema.optional(Schema.NullOr(Schema.String))

const GithubPullRequest = Schema.Struct({
  action: Schema.String,
  number: Schema.Int,
  pull_request: Schema.Struct({ merged: Schema.optional(Schema.NullOr(Schema.Boolean)), merged_at: ProviderTime }),
  repository: Schema.Struct({ full_name: Schema.String })
})

const GitlabMergeRequest = Schema.Struct({
  project: Schema.Struct({ path_with_namespace: Schema.String }),
  object_attributes: Schema.Struct({
    iid: Schema.Int,
    action: Schema.optional(Schema.String),
    state: Schema.optional(Schema.String),
    // newer GitLab versions send it; older ones do not (the merge is then dated on receipt)
    merged_at: ProviderTime
  })
})

/** Epoch ms of a provider's time text (GitHub ISO 8601; GitLab also `2026-01-02 03:04:05 UTC`), if it reads as one. */
const providerTime = (at: string | null | undefined): number | undefined => {
  if (at === undefined || at === null || at === "") return undefined
  const ms = Date.parse(at)
  return Number.isFinite(ms) ? ms : undefined
}

/** What the core receives of a merge. */
export type ParsedMerge = Workflows.PushEvents.ReceivedMerge

/**
 * A pull/merge request event's JSON in the provider's shape: the merge it tells (GitHub `closed`
 * with `merged: true`, GitLab action `merge` in state `merged`), or undefined for any other action
 * (opened, closed unmerged, updated...); or the schema's error (its paths name the bad fields).
 */
export const parseMerge = (provider: Provider, json: unknown): Result.Result<ParsedMerge | undefined, Schema.SchemaError> => {
  if (provider === "github") {
    return Result.map(
      Schema.decodeUnknownResult(GithubPullRequest, { errors: "all" })(json),
      (e) =>
        e.action === "closed" && e.pull_request.merged === true
          ? { repositoryFullName: e.repository.full_name, number: e.number, mergedAt: providerTime(e.pull_request.merged_at) }
          : undefined
    )
  }
  return Result.map(Schema.decodeUnknownResult(GitlabMergeRequest, { errors: "all" })(json), (e) => {
    const a = e.object_attributes
    return a.action === "merge" && (a.state === undefined || a.state === "merged")
      ? { repositoryFullName: e.project.path_with_namespace, number: a.iid, mergedAt: providerTime(a.merged_at) }
      : undefined
  })
}
