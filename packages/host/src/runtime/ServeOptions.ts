/**
 * The flags of `image-policy serve` (contracts 1), shared by the Node CLI (cli.ts) and the Deno
 * entry (runtime/deno.ts) so both accept exactly the same command line, plus what turns them into
 * a runnable configuration: the store, the seed file, the secret key and the app options.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { StoreConfig } from "@image-policy/adapters"
import { Delivery } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as App from "../App.js"
import type { BootResult } from "../Boot.js"
import * as RateLimit from "../http/RateLimit.js"
import * as SecretKey from "../SecretKey.js"
import * as Seed from "../seed/Seed.js"

const invalid = (message: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(message)))

/** `--store`: the flag, else `DATABASE_URL`, else the embedded default. Shared by every command. */
export const store = Options.text("store").pipe(
  Options.withPseudoName("STORE"),
  Options.withDescription(
    "`memory`, `pglite:DIR` or a postgres:// URL (default: DATABASE_URL when set, else " +
      `${StoreConfig.defaultStore})`
  ),
  Options.withFallbackConfig(Config.nonEmptyString("DATABASE_URL")),
  Options.withDefault(StoreConfig.defaultStore),
  // the parse error never echoes the text: a mistyped URL may hold a password
  Options.mapEffect((text) => Either.match(StoreConfig.parse(text), { onLeft: (e) => invalid(`--store: ${e.message}`), onRight: Effect.succeed }))
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
  let current: unknown = Runtime.isFiberFailure(error) ? Cause.squash(error[Runtime.FiberFailureCauseId]) : error
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

export const logLevels = { debug: LogLevel.Debug, info: LogLevel.Info, warning: LogLevel.Warning, error: LogLevel.Error } as const

/**
 * Takes `--log-level LEVEL` (or `--log-level=LEVEL`) out of the arguments. @effect/cli has a
 * built-in option of that name which shadows any option a command declares, and it only
 * recognises it in some positions (`serve --port 0 --log-level debug` fails as an unknown
 * argument), so the runtimes read it here, wherever it stands, before @effect/cli parses the rest.
 */
export const takeLogLevel = (
  args: ReadonlyArray<string>
): Either.Either<{ readonly args: ReadonlyArray<string>; readonly level: LogLevel.LogLevel | undefined }, string> => {
  const rest: Array<string> = []
  let level: LogLevel.LogLevel | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      rest.push(...args.slice(i))
      break
    }
    let value: string | undefined
    if (arg === "--log-level") value = args[++i] ?? ""
    else if (arg.startsWith("--log-level=")) value = arg.slice("--log-level=".length)
    else {
      rest.push(arg)
      continue
    }
    if (!Object.hasOwn(logLevels, value)) return Either.left(`--log-level must be one of ${Object.keys(logLevels).join(", ")}`)
    level = logLevels[value as keyof typeof logLevels]
  }
  return Either.right({ args: rest, level })
}

/**
 * The flags of `serve`, as @effect/cli options. `--log-level` is not among them: see `takeLogLevel`.
 */
export const options = {
  port: Options.integer("port").pipe(
    Options.withPseudoName("PORT"),
    Options.withDescription("TCP port to listen on; 0 picks a free one (the actual URL is logged)"),
    Options.withDefault(8080),
    Options.mapEffect((port) => port >= 0 && port <= 65535 ? Effect.succeed(port) : invalid("--port must be 0..65535"))
  ),
  host: Options.text("host").pipe(
    Options.withPseudoName("HOST"),
    Options.withDescription("address to listen on (0.0.0.0 for every interface)"),
    Options.withDefault("127.0.0.1")
  ),
  store,
  seed: Options.file("seed", { exists: "yes" }).pipe(
    Options.withPseudoName("FILE"),
    Options.withDescription("load this seed file (JSON, see docs/cli.md) before serving; organizations with a fixed id that exist are left as they are"),
    Options.optional
  ),
  demo: Options.boolean("demo").pipe(
    Options.withDescription("create the demo organization and print a fresh demo API key, a curl line and the OpenAPI URL")
  ),
  publicUrl: Options.text("public-url").pipe(
    Options.withPseudoName("URL"),
    Options.withDescription("base URL clients reach the service at (OpenAPI servers, CloudEvent dataschema); default: IMAGE_POLICY_PUBLIC_URL, else the listening address"),
    Options.withFallbackConfig(Config.nonEmptyString("IMAGE_POLICY_PUBLIC_URL")),
    Options.optional,
    Options.mapEffect(Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (url) =>
        /^https?:\/\/[^/\s]+/.test(url) && URL.canParse(url)
          ? Effect.succeed(url.replace(/\/+$/, ""))
          : invalid("--public-url must be an http:// or https:// URL")
    }))
  ),
  rateLimit: Options.text("rate-limit").pipe(
    Options.withPseudoName("RATE[:BURST]|off"),
    Options.withDescription(
      `requests per second and burst per API key, or \`off\` (default: IMAGE_POLICY_RATE_LIMIT, else ${RateLimit.defaults.ratePerSecond}:${RateLimit.defaults.burst})`
    ),
    Options.withFallbackConfig(Config.nonEmptyString("IMAGE_POLICY_RATE_LIMIT")),
    Options.optional,
    Options.mapEffect((text) => {
      const parsed = RateLimit.parse(Option.getOrUndefined(text))
      return parsed === undefined ? invalid("--rate-limit must be RATE[:BURST] (e.g. 50:100) or off") : Effect.succeed(parsed)
    })
  ),
  tracing: Options.boolean("tracing").pipe(
    Options.withDescription("record an Effect span per request (costs throughput)")
  ),
  noAccessLog: Options.boolean("no-access-log").pipe(Options.withDescription("do not log one line per request"))
}

export interface Flags {
  readonly port: number
  readonly host: string
  readonly store: StoreConfig.StoreSpec
  readonly seed: Option.Option<string>
  readonly demo: boolean
  readonly publicUrl: string | undefined
  readonly rateLimit: RateLimit.Options | null
  readonly tracing: boolean
  readonly noAccessLog: boolean
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
  readonly demo: boolean
  readonly app: App.Options
  readonly tracing: boolean
  readonly logLevel: LogLevel.LogLevel
  readonly secretKey: SecretKey.SecretKey
  readonly allowUnsafeWebhookTargets: boolean
  /** `IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE`, else the contracted default. */
  readonly webhookRetrySchedule: ReadonlyArray<number>
  /** Warnings to log once the logger is set up (contracts 1). */
  readonly warnings: ReadonlyArray<string>
}

/** Reads and validates a seed file; every problem with its JSON path. */
export const readSeed = (file: string): Effect.Effect<Seed.SeedFile, StartupError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((e) => new StartupError({ message: `cannot read seed file ${file}: ${e.message}`, details: [] }))
    )
    return yield* Either.match(Seed.parse(text), {
      onLeft: (e) =>
        Effect.fail(new StartupError({
          message: `invalid seed file ${file} (nothing was written):`,
          details: e.problems.map((p) => `  ${p.path}: ${p.message}`)
        })),
      onRight: Effect.succeed
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
      ? Delivery.defaultRetrySchedule
      : yield* Either.match(Delivery.parseRetrySchedule(scheduleText), {
        onLeft: (e) => Effect.fail(new StartupError({ message: `${retryScheduleVar}: ${e.reason}`, details: [] })),
        onRight: Effect.succeed
      })
    return {
      allowUnsafeWebhookTargets: env[unsafeWebhookTargetsVar] === "1",
      webhookRetrySchedule,
      port: flags.port,
      host: flags.host,
      store: flags.store,
      seed,
      demo: flags.demo,
      app: { ...App.defaults, publicUrl: flags.publicUrl, rateLimit: flags.rateLimit, accessLog: !flags.noAccessLog },
      tracing: flags.tracing,
      logLevel: logLevel ?? LogLevel.Info,
      secretKey,
      warnings
    } satisfies ServeConfig
  })

/** JSON lines on stdout at the chosen level (the same format as runtime/node.ts). */
export const loggerLayer = (level: LogLevel.LogLevel) => Layer.merge(Logger.json, Logger.minimumLogLevel(level))

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
    "Try it:",
    `  curl -H 'x-api-key: ${demo.apiKey}' ${base}/api/v1/org/${demo.orgId}/teams`,
    rule
  ].join("\n")
}
