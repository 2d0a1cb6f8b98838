/**
 * The production `VcsProvider`: it reads each connection's settings and answers from the fixture
 * provider (`kind: "fixture"`) or from GitHub or GitLab (`kind: "api"`, chosen by the
 * connection's provider), with the token the settings give: sealed in the store (`sealedToken`,
 * opened through the core's `SecretBox` for each call and dropped with it) or read from the
 * environment variable `tokenEnv` names. A sealed token that cannot be opened (the host runs with
 * another `IMAGE_POLICY_SECRET_KEY`) is `not-configured`, logged with the connection id and the
 * reason only. Caches and quota are keyed by the variable's name or the sealed text, never by the
 * token itself.
 *
 * Provider quota is spent only when it must be (spec 4, rule 1):
 * - repositories are cached per connection without expiry: the provider is asked only with
 *   `refresh: true` or when nothing is cached yet, and concurrent first calls wait for one answer;
 * - branches are cached per repository for a short time (60 s by default);
 * - files and file lists are never cached: sync and branch scans need the head of the branch;
 * - remediation writes are never cached (and drop the repository's cached branches: the head
 *   branch may be new);
 * - a rate-limited answer is remembered per token until its reset, and every call that would
 *   reach the provider in that window fails at once with the remaining seconds.
 */
import { type ConnectionContext, SecretBox, type VcsConnection, VcsProvider, VcsProviderError } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as ConnectionSecrets from "./ConnectionSecrets.js"
import * as Fixture from "./Fixture.js"
import * as GitHub from "./GitHub.js"
import * as GitLab from "./GitLab.js"
import * as ProviderHttp from "./ProviderHttp.js"

export { VcsProvider }

export interface Options {
  /** Reads the token variables; default `process.env` where there is one. */
  readonly env?: ProviderHttp.Env
  /** Default `globalThis.fetch`. */
  readonly fetch?: ProviderHttp.Fetch
  /** Wall clock in epoch milliseconds; default the Effect `Clock` (so tests drive it with `TestClock`). */
  readonly now?: () => number
  /** Serves `kind: "fixture"` connections; default a fresh `Fixture.make().provider`. Pass your own to keep its `files` handle. */
  readonly fixture?: typeof VcsProvider.Service
  /** Per provider request. Default 10 s. */
  readonly timeoutMs?: number
  /** How long a repository's branch list is reused. Default 60 s. */
  readonly branchesTtlMs?: number
  readonly userAgent?: string
  /**
   * Opens `sealedToken`s. Default: the `SecretBox` of the calling fiber (the host's services hold
   * one); without either, a connection with a sealed token is `not-configured`.
   */
  readonly secretBox?: typeof SecretBox.Service
}

const decodeSettings = Schema.decodeUnknownOption(Fixture.ConnectionSettings)

interface Api {
  readonly provider: "github" | "gitlab"
  /** The connection's cache key: settings changes start a fresh cache. */
  readonly key: string
  /** The quota's key: one token on one host, whichever connections use it. */
  readonly quotaKey: string
  readonly client: ProviderHttp.Client
}

/** The REST adapter of each provider kind (their operations take the same arguments). */
const adapters = { github: GitHub, gitlab: GitLab } as const

const notConfigured = () => new VcsProviderError({ reason: "not-configured" })

type ApiSettings = Extract<Fixture.ConnectionSettings, { readonly kind: "api" }>

/** Why a connection's token could not be had; logged, never answered (the answer is `not-configured`). */
const tokenMissing = (ctx: ConnectionContext, reason: string) =>
  Effect.logWarning("VCS connection token unavailable").pipe(
    Effect.annotateLogs({ orgId: ctx.orgId, connectionId: ctx.connection.id, reason }),
    Effect.andThen(Effect.fail(notConfigured()))
  )

export const make = (options: Options = {}): typeof VcsProvider.Service => {
  const fixture = options.fixture ?? Fixture.make().provider
  const env = options.env ?? ProviderHttp.defaultEnv
  const now = options.now === undefined ? Clock.currentTimeMillis : Effect.sync(options.now)
  const branchesTtlMs = options.branchesTtlMs ?? 60_000

  const repositories = new Map<string, ReadonlyArray<VcsConnection.ProviderRepository>>()
  const branches = new Map<string, { readonly expiresAt: number; readonly value: ReadonlyArray<VcsConnection.AvailableBranch> }>()
  const rateLimitedUntil = new Map<string, number>()
  const locks = new Map<string, Semaphore.Semaphore>()

  const serialized = (key: string) => {
    let lock = locks.get(key)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(key, lock)
    }
    return lock.withPermits(1)
  }

  /** `None` for fixture connections; the API client otherwise. */
  const resolve = (ctx: ConnectionContext): Effect.Effect<Option.Option<Api>, VcsProviderError> => {
    const settings = decodeSettings(ctx.settings)
    if (Option.isNone(settings)) return Effect.fail(notConfigured())
    if (settings.value.kind === "fixture") return Effect.succeed(Option.none())
    const api = settings.value
    return Effect.flatMap(tokenOf(ctx, api), ({ source, token }) => {
      const client = clientFor(ctx, api, token, source)
      return client === undefined ? Effect.fail(notConfigured()) : Effect.succeed(Option.some(client))
    })
  }

  /** The token (opened or read now, for this call only) and what names its source in cache keys. */
  const tokenOf = (ctx: ConnectionContext, api: ApiSettings): Effect.Effect<{ token: string; source: string }, VcsProviderError> =>
    Effect.flatMap(
      options.secretBox !== undefined
        ? Effect.succeed(options.secretBox)
        : Effect.map(Effect.serviceOption(SecretBox), Option.getOrUndefined),
      (box) =>
        Effect.flatMap(
          ConnectionSecrets.read("token", { sealed: api.sealedToken, envName: api.tokenEnv }, env, box),
          (read) =>
            read._tag === "Found"
              ? Effect.succeed({ token: read.value.trim(), source: read.source })
              : read.reason === "not-configured"
              ? Effect.fail(notConfigured())
              : tokenMissing(ctx, read.reason)
        )
    )

  /** `undefined` when the base URL is not one the provider's client accepts. */
  const clientFor = (ctx: ConnectionContext, api: ApiSettings, token: string, source: string): Api | undefined => {
    const clientOptions: ProviderHttp.ClientOptions = {
      baseUrl: api.baseUrl,
      token,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent })
    }
    const provider = ctx.connection.provider
    const client = adapters[provider].client(clientOptions)
    if (client === undefined) return undefined
    return {
      provider,
      key: JSON.stringify([ctx.orgId, ctx.connection.id, provider, client.baseUrl, source]),
      quotaKey: JSON.stringify([provider, client.baseUrl, source]),
      client
    }
  }

  /** A provider call, refused at once while its token is known to be rate limited. */
  const guarded = <A, E>(api: Api, call: Effect.Effect<A, E | VcsProviderError>): Effect.Effect<A, E | VcsProviderError> =>
    Effect.gen(function*() {
      const at = yield* now
      const until = rateLimitedUntil.get(api.quotaKey)
      if (until !== undefined && at < until) {
        return yield* Effect.fail(
          new VcsProviderError({ reason: "rate-limited", retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)) })
        )
      }
      rateLimitedUntil.delete(api.quotaKey)
      return yield* Effect.tapError(call, (error) =>
        error instanceof VcsProviderError && error.reason === "rate-limited"
          ? Effect.flatMap(now, (failedAt) =>
            Effect.sync(() =>
              rateLimitedUntil.set(api.quotaKey, failedAt + (error.retryAfterSeconds ?? ProviderHttp.defaultRetryAfterSeconds) * 1000)
            ))
          : Effect.void)
    })

  const listRepositories: typeof VcsProvider.Service.listRepositories = (ctx, request) =>
    Effect.flatMap(
      resolve(ctx),
      Option.match({
        onNone: () => fixture.listRepositories(ctx, request),
        onSome: (api) =>
          serialized(api.key)(Effect.suspend(() => {
            const cached = repositories.get(api.key)
            if (cached !== undefined && !request.refresh) return Effect.succeed(cached)
            const call = adapters[api.provider].listRepositories(api.client)
            return Effect.tap(guarded(api, call), (listed) => Effect.sync(() => repositories.set(api.key, listed)))
          }))
      })
    )

  const listBranches: typeof VcsProvider.Service.listBranches = (ctx, repository) =>
    Effect.flatMap(
      resolve(ctx),
      Option.match({
        onNone: () => fixture.listBranches(ctx, repository),
        onSome: (api) => {
          const key = JSON.stringify([api.key, repository.fullName])
          return serialized(key)(Effect.gen(function*() {
            const at = yield* now
            const cached = branches.get(key)
            if (cached !== undefined && at < cached.expiresAt) return cached.value
            // the default branch as the provider listed it, when cached; else GitHub asks (GitLab flags it itself)
            const known = repositories.get(api.key)?.find((r) => r.fullName === repository.fullName)?.defaultBranch
            const listed = yield* guarded(
              api,
              api.provider === "github"
                ? GitHub.listBranches(api.client, { fullName: repository.fullName, defaultBranch: known })
                : GitLab.listBranches(api.client, repository)
            )
            const stored = yield* now
            for (const [k, entry] of branches) if (entry.expiresAt <= stored) branches.delete(k)
            branches.set(key, { expiresAt: stored + branchesTtlMs, value: listed })
            return listed
          }))
        }
      })
    )

  const readFile: typeof VcsProvider.Service.readFile = (ctx, file) =>
    Effect.flatMap(
      resolve(ctx),
      Option.match({
        onNone: () => fixture.readFile(ctx, file),
        onSome: (api) => guarded(api, adapters[api.provider].readFile(api.client, file))
      })
    )

  const listFiles: typeof VcsProvider.Service.listFiles = (ctx, at) =>
    Effect.flatMap(
      resolve(ctx),
      Option.match({
        onNone: () => fixture.listFiles(ctx, at),
        onSome: (api) => guarded(api, adapters[api.provider].listFiles(api.client, at))
      })
    )

  const openRemediation: typeof VcsProvider.Service.openRemediation = (ctx, write) =>
    Effect.flatMap(
      resolve(ctx),
      Option.match({
        onNone: () => fixture.openRemediation(ctx, write),
        onSome: (api) =>
          guarded(api, adapters[api.provider].openRemediation(api.client, write)).pipe(
            Effect.ensuring(Effect.sync(() => branches.delete(JSON.stringify([api.key, write.fullName]))))
          )
      })
    )

  return { listRepositories, listBranches, readFile, listFiles, openRemediation }
}

/** The `VcsProvider` of a deployment: fixture, GitHub and GitLab connections, cached per connection. */
export const layer = (options: Options = {}): Layer.Layer<VcsProvider> => Layer.sync(VcsProvider, () => make(options))
