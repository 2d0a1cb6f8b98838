/**
 * The flags of `image-policy serve` (contracts 1), shared by the Node CLI (cli.ts) and the Deno
 * entry (runtime/deno.ts) so both accept exactly the same command line, plus what turns them into
 * a runnable configuration: the store, the seed file, the secret key and the app options.
 */
import { StoreConfig } from "@image-policy/adapters"
import { DeliveryPolicy, Lease, Session } from "@image-policy/core"
import * as CliError from "effect/cli/CliError"
import * as Flag from "effect/cli/Flag"
import * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as App from "../App.js"
import type { BootResult } from "../Boot.js"
import * as RateLimit from "../http/RateLimit.js"
import * as HostMetrics from "../metrics/HostMetrics.js"
import * as Otlp from "../metrics/Otlp.js"
import * as SecretKey from "../SecretKey.js"
import * as Seed from "../seed/Seed.js"

// printed as is after `image-policy: ` (cli.ts installs that presenter), so the text names its flag
const invalid = (message: string) => Effect.fail(new CliError.ValidationError({ message }))

/** `--store`: the flag, else `DATABASE_URL`, else the embedded default. Shared by every command. */
export const store = Flag.String("store").pipe(
  Flag.withMetavar("STORE"),
  Flag.withDescription(
    "`memory`, `pglite:DIR` or a postgres:// URL (default: DATABASE_URL when set, else " +
      `${StoreConfig.defaultStore})`
  ),
  Flag.withFallbackConfig(Config.NonEmptyString("DATABASE_URL")),
  Flag.withDefault(StoreConfig.defaultStore),
  // the parse error never echoes the text: a mistyped URL may hold a password
  Flag.mapEffect((text) =>
    Result.match(StoreConfig.parse(text), { onFailure: (e) => invalid(`--store: ${e.message}`), onSuccess: Effect.succeed })
  )
)

/** How a store is shown in output and logs: a postgres URL loses its password. */
export const describeStore = (spec: StoreConfig.StoreSpec): string => {
  switch (spec._tag) {
    case "memory":
      return "memory"
    case "pglite":
      return `pglite:${spec.dataDir}`
    case "postgres":
      return redactUrl(spec.url)
  }
}

const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    // libpq-style parameters may carry secrets too (`?password=`, `sslpassword=`)
    parsed.search = ""
    return parsed.toString()
  } catch {
    return "postgres://…"
  }
}

/**
 * A one-line reason for a failure, following `cause` links (e.g. "PgClient: Failed to connect:
 * connect ECONNREFUSED 127.0.0.1:5432", or the `EADDRINUSE` under a server error), without stack
 * traces. Pass it through `scrub` before showing it.
 */
export const reasonOf = (error: unknown): string => {
  const parts: Array<string> = []
  // a rejected `runPromise` carries the failure itself (Effect 4 no longer wraps it in a FiberFailure)
  let current: unknown = error
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (typeof current !== "object" || !("message" in current)) {
      parts.push(String(current))
      break
    }
    const message = String(current.message)
    // Effect's errors without a message of their own say only this; their cause says more
    if (message !== "" && message !== "An error has occurred" && !parts.includes(message)) parts.push(message)
    current = "cause" in current ? current.cause : undefined
  }
  return parts.length > 0 ? parts.join(": ") : "unknown error"
}

/** Removes a postgres URL (and its password) from a message that may quote it, e.g. a driver error. */
export const scrub = (message: string, spec: StoreConfig.StoreSpec): string => {
  if (spec._tag !== "postgres") return message
  let out = message.split(spec.url).join(describeStore(spec))
  try {
    const password = decodeURIComponent(new URL(spec.url).password)
    if (password !== "") out = out.split(password).join("***")
  } catch {
    // not a parsable URL: nothing more to remove than the text itself
  }
  return out
}

export const metricsVar = "IMAGE_POLICY_METRICS"

/** The longest `--shutdown-timeout`: a process manager's own grace period is rarely longer. */
const maxShutdownSeconds = 3_600

/** A session lifetime flag (`Session.parseLifetime`: `90m`, `12h`, `7d`, or seconds), with its variable and default. */
const lifetimeFlag = (name: string, variable: string, description: string, defaultMs: number, defaultText: string) =>
  Flag.String(name).pipe(
    Flag.withMetavar("DURATION"),
    Flag.withDescription(`${description} (default: ${variable}, else ${defaultText})`),
    Flag.withFallbackConfig(Config.NonEmptyString(variable)),
    Flag.optional,
    Flag.mapEffect(Option.match({
      onNone: () => Effect.succeed(defaultMs),
      onSome: (text) => {
        const ms = Session.parseLifetime(text)
        return ms === undefined ? invalid(`--${name} must be a duration of 1s to 365d (e.g. 30m, 12h, 7d)`) : Effect.succeed(ms)
      }
    }))
  )

/**
 * The flags of `serve`, as effect/cli flags. `--log-level` is not among them: see `CommandLine.takeLogLevel`.
 */
export const options = {
  port: Flag.Int("port").pipe(
    Flag.withMetavar("PORT"),
    Flag.withDescription("TCP port to listen on; 0 picks a free one (the actual URL is logged)"),
    Flag.withDefault(8080),
    Flag.mapEffect((port) => port >= 0 && port <= 65535 ? Effect.succeed(port) : invalid("--port must be 0..65535"))
  ),
  host: Flag.String("host").pipe(
    Flag.withMetavar("HOST"),
    Flag.withDescription("address to listen on (0.0.0.0 for every interface)"),
    Flag.withDefault("127.0.0.1")
  ),
  store,
  seed: Flag.File("seed", { mustExist: true }).pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription(
      "load this seed file (JSON, see docs/cli.md) before serving; organizations with a fixed id that exist are left as they are"
    ),
    Flag.optional
  ),
  seedUpdate: Flag.Boolean("seed-update").pipe(
    Flag.withDescription("with --seed: apply the seed to organizations that exist too (idempotent; see seed --update)"),
    Flag.withDefault(false)
  ),
  // a Boolean flag without a default is a required flag in effect/cli 4
  demo: Flag.Boolean("demo").pipe(
    Flag.withDescription("create the demo organization and print a fresh demo API key, a curl line and the OpenAPI URL"),
    Flag.withDefault(false)
  ),
  publicUrl: Flag.String("public-url").pipe(
    Flag.withMetavar("URL"),
    Flag.withDescription(
      "base URL clients reach the service at (OpenAPI servers, CloudEvent dataschema); default: IMAGE_POLICY_PUBLIC_URL, else the listening address"
    ),
    Flag.withFallbackConfig(Config.NonEmptyString("IMAGE_POLICY_PUBLIC_URL")),
    Flag.optional,
    Flag.mapEffect(Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (url) =>
        /^https?:\/\/[^/\s]+/.test(url) && URL.canParse(url)
          ? Effect.succeed(url.replace(/\/+$/, ""))
          : invalid("--public-url must be an http:// or https:// URL")
    }))
  ),
  rateLimit: Flag.String("rate-limit").pipe(
    Flag.withMetavar("RATE[:BURST]|off"),
    Flag.withDescription(
      `requests per second and burst per API key, or \`off\` (default: IMAGE_POLICY_RATE_LIMIT, else ${RateLimit.defaults.ratePerSecond}:${RateLimit.defaults.burst})`
    ),
    Flag.withFallbackConfig(Config.NonEmptyString("IMAGE_POLICY_RATE_LIMIT")),
    Flag.optional,
    Flag.mapEffect((text) => {
      const parsed = RateLimit.parse(Option.getOrUndefined(text))
      return parsed === undefined ? invalid("--rate-limit must be RATE[:BURST] (e.g. 50:100) or off") : Effect.succeed(parsed)
    })
  ),
  tracing: Flag.Boolean("tracing").pipe(
    Flag.withDescription("record an Effect span per request (costs throughput)"),
    Flag.withDefault(false)
  ),
  metrics: Flag.Boolean("metrics").pipe(
    Flag.withDescription(
      `serve Prometheus metrics at GET /metrics, without an API key: keep it off the public network (default: on when ${metricsVar}=1)`
    ),
    Flag.withDefault(false)
  ),
  noAccessLog: Flag.Boolean("no-access-log").pipe(Flag.withDescription("do not log one line per request"), Flag.withDefault(false)),
  instanceId: Flag.String("instance-id").pipe(
    Flag.withMetavar("NAME"),
    Flag.withDescription(
      "this host's stable name among the hosts of one store: a start releases what an earlier process of the same instance held; two hosts running at once (e.g. on one machine) need distinct names (default: IMAGE_POLICY_INSTANCE_ID, else the hostname)"
    ),
    Flag.withFallbackConfig(Config.NonEmptyString("IMAGE_POLICY_INSTANCE_ID")),
    Flag.optional,
    Flag.mapEffect(Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (name) =>
        Lease.isInstance(name) ? Effect.succeed(name) : invalid("--instance-id must be 1 to 64 letters, digits, '.', '_' or '-'")
    }))
  ),
  sessionIdleTimeout: lifetimeFlag(
    "session-idle-timeout",
    "IMAGE_POLICY_SESSION_IDLE_TIMEOUT",
    "how long a web console session lives unused, e.g. 30m, 12h",
    Session.defaultLifetimes.idleMs,
    "12h"
  ),
  sessionMaxAge: lifetimeFlag(
    "session-max-age",
    "IMAGE_POLICY_SESSION_MAX_AGE",
    "how long a web console session lives at most, whatever its use, e.g. 1d, 7d",
    Session.defaultLifetimes.maxAgeMs,
    "7d"
  ),
  // the web console (issue 17, http/Console.ts)
  consoleDir: Flag.String("console-dir").pipe(
    Flag.withMetavar("DIR|off"),
    Flag.withDescription(
      "serve the web console at / from this built folder (its index.html and assets/), or `off` for the API only (default: IMAGE_POLICY_CONSOLE_DIR, else the built @image-policy/console package)"
    ),
    Flag.withFallbackConfig(Config.NonEmptyString("IMAGE_POLICY_CONSOLE_DIR")),
    Flag.optional,
    Flag.map(Option.match({ onNone: (): string | false | undefined => undefined, onSome: (dir) => dir === "off" ? false : dir }))
  ),
  shutdownTimeout: Flag.Int("shutdown-timeout").pipe(
    Flag.withMetavar("SECONDS"),
    Flag.withDescription(
      "on SIGTERM, how long work in flight (webhook deliveries, scans) may take to finish before it is released to other hosts (default: IMAGE_POLICY_SHUTDOWN_TIMEOUT, else 10)"
    ),
    Flag.withFallbackConfig(Config.Int("IMAGE_POLICY_SHUTDOWN_TIMEOUT")),
    Flag.withDefault(10),
    Flag.mapEffect((seconds) =>
      seconds >= 0 && seconds <= maxShutdownSeconds
        ? Effect.succeed(seconds)
        : invalid(`--shutdown-timeout must be 0..${maxShutdownSeconds} seconds`)
    )
  )
}

export interface Flags {
  readonly port: number
  readonly host: string
  readonly store: StoreConfig.StoreSpec
  readonly seed: Option.Option<string>
  readonly seedUpdate: boolean
  readonly demo: boolean
  readonly publicUrl: string | undefined
  readonly rateLimit: RateLimit.Options | null
  readonly tracing: boolean
  readonly noAccessLog: boolean
  readonly metrics: boolean
  readonly instanceId: string | undefined
  readonly shutdownTimeout: number
  /** Milliseconds. */
  readonly sessionIdleTimeout: number
  /** Milliseconds. */
  readonly sessionMaxAge: number
  readonly consoleDir?: string | false | undefined
}

/** Why the host cannot start; `details` are extra lines (e.g. every problem of a seed file). */
export class StartupError extends Data.TaggedError("StartupError")<{
  readonly message: string
  readonly details: ReadonlyArray<string>
}> {}

export interface ServeConfig {
  readonly port: number
  readonly host: string
  readonly store: StoreConfig.StoreSpec
  readonly seed: Seed.SeedFile | undefined
  readonly seedUpdate: boolean
  readonly demo: boolean
  readonly app: App.Options
  readonly tracing: boolean
  /** This host's metrics registry when `--metrics` or `IMAGE_POLICY_METRICS=1`, else undefined (off). */
  readonly metrics: HostMetrics.Registry | undefined
  readonly logLevel: LogLevel.LogLevel
  readonly secretKey: SecretKey.SecretKey
  readonly allowUnsafeWebhookTargets: boolean
  /** `IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE`, else the contracted default. */
  readonly webhookRetrySchedule: ReadonlyArray<number>
  /** Warnings to log once the logger is set up (contracts 1). */
  readonly warnings: ReadonlyArray<string>
  /** `--instance-id`; undefined: the runtime uses the hostname. */
  readonly instanceId: string | undefined
  /** `--shutdown-timeout` in milliseconds. */
  readonly drainMs: number
  /** OTLP export from the `OTEL_*` variables (metrics/Otlp.ts); undefined when no endpoint is set. */
  readonly telemetry: Otlp.Settings | undefined
}

/** Reads and validates a seed file; every problem with its JSON path. */
export const readSeed = (file: string): Effect.Effect<Seed.SeedFile, StartupError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((e) => new StartupError({ message: `cannot read seed file ${file}: ${e.message}`, details: [] }))
    )
    return yield* Result.match(Seed.parse(text), {
      onFailure: (e) =>
        Effect.fail(
          new StartupError({
            message: `invalid seed file ${file} (nothing was written):`,
            details: e.problems.map((p) => `  ${p.path}: ${p.message}`)
          })
        ),
      onSuccess: Effect.succeed
    })
  })

export const unsafeWebhookTargetsVar = "IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS"
export const retryScheduleVar = "IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE"

/** Parsed flags + environment -> what a runtime needs to start. */
export const resolve = (
  flags: Flags,
  env: Readonly<Record<string, string | undefined>>,
  logLevel: LogLevel.LogLevel | undefined
): Effect.Effect<ServeConfig, StartupError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const seed = Option.isSome(flags.seed) ? yield* readSeed(flags.seed.value) : undefined
    const secretKey = yield* SecretKey.resolve(flags.store, env).pipe(
      Effect.mapError((e) => new StartupError({ message: e.message, details: [] }))
    )
    const warnings: Array<string> = []
    if (env[unsafeWebhookTargetsVar] === "1") {
      warnings.push(
        `${unsafeWebhookTargetsVar}=1: loopback, private and plain-HTTP webhook targets are allowed; use this for local testing only`
      )
    }
    const scheduleText = env[retryScheduleVar]
    const webhookRetrySchedule = scheduleText === undefined || scheduleText.trim() === ""
      ? DeliveryPolicy.defaultRetrySchedule
      : yield* Result.match(DeliveryPolicy.parseRetrySchedule(scheduleText), {
        onFailure: (e) => Effect.fail(new StartupError({ message: `${retryScheduleVar}: ${e.reason}`, details: [] })),
        onSuccess: Effect.succeed
      })
    const telemetry = yield* Result.match(Otlp.fromEnv(env), {
      onFailure: (message) => Effect.fail(new StartupError({ message, details: [] })),
      onSuccess: Effect.succeed
    })
    return {
      telemetry,
      allowUnsafeWebhookTargets: env[unsafeWebhookTargetsVar] === "1",
      webhookRetrySchedule,
      port: flags.port,
      host: flags.host,
      store: flags.store,
      seed,
      seedUpdate: flags.seedUpdate,
      demo: flags.demo,
      app: {
        ...App.defaults,
        publicUrl: flags.publicUrl,
        rateLimit: flags.rateLimit,
        accessLog: !flags.noAccessLog,
        sessionLifetimes: { idleMs: flags.sessionIdleTimeout, maxAgeMs: flags.sessionMaxAge },
        console: flags.consoleDir
      },
      tracing: flags.tracing,
      metrics: flags.metrics || env[metricsVar] === "1" || env[metricsVar] === "true" ? HostMetrics.make() : undefined,
      logLevel: logLevel ?? "Info",
      secretKey,
      warnings,
      instanceId: flags.instanceId,
      drainMs: flags.shutdownTimeout * 1_000
    } satisfies ServeConfig
  })

/** What is logged once the host listens (never the key itself). */
export const startupLog = (config: ServeConfig, url: string, booted: BootResult) =>
  Effect.gen(function*() {
    for (const warning of config.warnings) yield* Effect.logWarning(warning)
    if (config.secretKey.source === "generated") {
      yield* Effect.logInfo("generated a secret key for secrets at rest").pipe(Effect.annotateLogs({ path: config.secretKey.path }))
    }
    if (booted.seeded.length > 0) {
      yield* Effect.logInfo("seed loaded").pipe(
        Effect.annotateLogs({ organizations: booted.seeded.map((o) => ({ id: o.id, name: o.name, existing: o.existing })) })
      )
    }
    if (config.telemetry !== undefined) {
      yield* Effect.logInfo("exporting telemetry over OTLP").pipe(Effect.annotateLogs(Otlp.describe(config.telemetry)))
    }
    yield* Effect.logInfo("listening").pipe(Effect.annotateLogs({ url, store: describeStore(config.store) }))
  })

/** The human-readable block `serve --demo` prints once (contracts 1). */
export const demoBanner = (demo: NonNullable<BootResult["demo"]>, url: string, publicUrl: string | undefined): string => {
  const base = publicUrl ?? url
  const rule = "-".repeat(72)
  return [
    rule,
    `image-policy demo is running at ${base}`,
    "",
    `  demo organization  ${demo.orgId}`,
    `  demo API key       ${demo.apiKey}`,
    "                     (shown once: only its hash is stored; every start mints a new one)",
    `  OpenAPI document   ${base}/api/v1/openapi.json`,
    "",
    `  web console        ${base}/`,
    `  demo user          ${demo.userEmail}`,
    `  demo password      ${demo.password}`,
    "                     (shown once, like the key: every start sets a new one)",
    "",
    "Try it:",
    `  curl -H 'x-api-key: ${demo.apiKey}' ${base}/api/v1/org/${demo.orgId}/teams`,
    rule
  ].join("\n")
}
