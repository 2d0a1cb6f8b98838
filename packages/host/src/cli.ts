/**
 * The `image-policy` command (contracts 1): `serve`, `migrate`, `seed`, `keys create`, `users`
 * (UsersCommand.ts) and `check` (check/CheckCommand.ts; bin/image-policy.js starts `check` from
 * check/main.ts instead, which loads none of the host). It only parses flags, calls the runtime, the
 * seed loader or a workflow, and prints; docs/cli.md is the user's page; runtime/CommandLine.ts holds
 * what both entries share (the root command, global flags, failures, exit). Exit codes: 0 done, 1 the command failed (invalid seed, store unreachable, bad
 * secret key), 2 the command line is wrong.
 */
import { Migrations, PgClient, PgliteClient, StoreConfig } from "@image-policy/adapters"
import { ApiKey, Id, Input, OrganizationStore, Permission, version, Workflows } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as App from "./App.js"
import * as CheckCommand from "./check/CheckCommand.js"
import * as CommandLine from "./runtime/CommandLine.js"
import { CommandFailure, usage } from "./runtime/CommandLine.js"
import * as JsonLog from "./runtime/JsonLog.js"
import { type Running, start } from "./runtime/node.js"
import * as ServeOptions from "./runtime/ServeOptions.js"
import * as SecretKey from "./SecretKey.js"
import * as Seed from "./seed/Seed.js"
import * as UsersCommand from "./UsersCommand.js"

const messageOf = (cause: Cause.Cause<unknown>): string => ServeOptions.reasonOf(Cause.squash(cause))

// `--log-format` and `--log-level` first: a wrong one ends the process here (exit 2)
const invocation = CommandLine.read(process.argv.slice(2))
const serverLogFormat = invocation.stdout

// One-shot commands print their answer on stdout; logs (migrations, drivers) go to stderr so they
// never mix into it, and only warnings unless `--log-level` asks for more.
const quietLogs = JsonLog.stderrLoggerLayer(invocation.level ?? "Warn", invocation.stderr)

/** Runs `use` with the store's services (migrated first), then closes the store. */
const withStore = <A, E, R>(
  spec: StoreConfig.StoreSpec,
  use: Effect.Effect<A, E, R>,
  secretKey?: string,
  previousSecretKeys?: ReadonlyArray<string>
) =>
  Effect.scoped(Effect.gen(function*() {
    const services = yield* Layer.build(App.services(StoreConfig.layer(spec), { secretKey, previousSecretKeys })).pipe(
      Effect.catchCause((cause) =>
        Effect.fail(
          new CommandFailure({
            message: `cannot open the store ${ServeOptions.describeStore(spec)}: ${ServeOptions.scrub(messageOf(cause), spec)}`,
            exitCode: 1
          })
        )
      )
    )
    return yield* Effect.provide(use, services)
  }))

// serve ------------------------------------------------------------------------------------------

/**
 * SIGTERM or SIGINT: stop accepting and stop taking work, let in-flight requests and work finish
 * (work up to `--shutdown-timeout`, then released to other hosts), close the store; the answer
 * settles then, and the process exits 0. A second signal while stopping exits at once (130/143, the
 * shells' codes). The handlers are installed at once, before anything announces the server.
 */
const stopOnSignal = (running: Running, logging: Layer.Layer<never>): Promise<void> =>
  new Promise((resolve, reject) => {
    let stopping = false
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(signal === "SIGINT" ? 130 : 143)
      stopping = true
      Effect.runSync(Effect.logInfo("stopping").pipe(Effect.annotateLogs({ signal }), Effect.provide(logging)))
      running.stop().then(resolve, reject)
    }
    process.on("SIGTERM", onSignal)
    process.on("SIGINT", onSignal)
  })

const serve = Command.make("serve", ServeOptions.options, (flags) =>
  Effect.gen(function*() {
    const config = yield* ServeOptions.resolve(flags, process.env, invocation.level)
    const running = yield* Effect.tryPromise({
      try: () =>
        start({
          port: config.port,
          host: config.host,
          store: StoreConfig.layer(config.store),
          app: config.app,
          seed: config.seed,
          seedUpdate: config.seedUpdate,
          demo: config.demo,
          tracing: config.tracing,
          telemetry: config.telemetry,
          logLevel: config.logLevel,
          logFormat: serverLogFormat,
          services: {
            secretKey: config.secretKey.base64,
            previousSecretKeys: config.secretKey.previous,
            allowUnsafeWebhookTargets: config.allowUnsafeWebhookTargets,
            metrics: config.metrics
          },
          deliveryWorker: { schedule: config.webhookRetrySchedule },
          instanceId: config.instanceId,
          drainMs: config.drainMs
        }),
      catch: (e) =>
        new CommandFailure({
          message: `cannot start: ${ServeOptions.scrub(ServeOptions.reasonOf(e), config.store)}`,
          exitCode: 1
        })
    })
    const logging = JsonLog.loggerLayer(config.logLevel, JsonLog.bufferDefaults, serverLogFormat)
    const stopped = stopOnSignal(running, logging)
    yield* ServeOptions.startupLog(config, running.url, running.boot).pipe(Effect.provide(logging))
    if (running.boot.demo) yield* Console.log(ServeOptions.demoBanner(running.boot.demo, running.url, config.app.publicUrl))
    yield* Effect.tryPromise({
      try: () => stopped,
      catch: (e) => new CommandFailure({ message: `the host did not stop cleanly: ${ServeOptions.reasonOf(e)}`, exitCode: 1 })
    })
  })).pipe(Command.withDescription(
    "run the HTTP service (/api/v1) until SIGTERM or SIGINT; --log-level info|debug|warning|error sets the least severe log line written (default info); --log-format json|pretty (default: pretty on a terminal, else JSON lines; or IMAGE_POLICY_LOG_FORMAT)"
  ))

// migrate ----------------------------------------------------------------------------------------

const migrate = Command.make("migrate", { store: ServeOptions.store }, ({ store }) =>
  Effect.gen(function*() {
    const where = ServeOptions.describeStore(store)
    if (store._tag === "memory") return yield* Console.log(`${where}: nothing to migrate`)
    const client = store._tag === "pglite" ? PgliteClient.layer({ dataDir: store.dataDir }) : PgClient.layerFromUrl(store.url)
    const applied = yield* Migrations.run.pipe(
      Effect.provide(client),
      Effect.catchCause((cause) =>
        Effect.fail(new CommandFailure({ message: `cannot migrate ${where}: ${ServeOptions.scrub(messageOf(cause), store)}`, exitCode: 1 }))
      )
    )
    yield* Console.log(
      applied.length === 0
        ? `${where}: up to date`
        : `${where}: applied ${applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`).join(", ")}`
    )
  }).pipe(Effect.provide(quietLogs))).pipe(Command.withDescription("create or upgrade the store's tables (serve does this too)"))

// seed -------------------------------------------------------------------------------------------

const seed = Command.make(
  "seed",
  {
    store: ServeOptions.store,
    update: Flag.Boolean("update").pipe(
      Flag.withDescription("apply the seed to organizations that exist too: create what they lack, change what differs, delete nothing"),
      Flag.withDefault(false)
    ),
    file: Argument.File("FILE", { mustExist: true })
  },
  ({ file, store, update }) =>
    Effect.gen(function*() {
      // validated whole before the store is even opened: an invalid seed writes nothing
      const parsed = yield* ServeOptions.readSeed(file)
      // sealed values must open on the hosts that serve this store: seal with their key (SecretKey.ts)
      const secretKey = Seed.sealsSecrets(parsed)
        ? (yield* SecretKey.resolve(store, process.env).pipe(
          Effect.mapError((e) => new CommandFailure({ message: e.message, exitCode: 1 }))
        )).base64
        : undefined
      const seeded = yield* withStore(store, Seed.load(parsed, { update }), secretKey)
      yield* Console.log(JSON.stringify({ organizations: seeded }, null, 2))
    }).pipe(Effect.provide(quietLogs))
).pipe(
  Command.withDescription("load a seed file into a store (--update: into existing organizations too) and print the ids by name as JSON")
)

// keys create ------------------------------------------------------------------------------------

const ExpiresInDays = Schema.Union([
  Schema.Literal("unlimited"),
  // "abc" decodes to NaN here, which the integer check of ExpiresInDays refuses
  Schema.NumberFromString.pipe(Schema.decodeTo(ApiKey.ExpiresInDays))
])

const keysCreate = Command.make(
  "create",
  {
    store: ServeOptions.store,
    org: Flag.String("org").pipe(Flag.withMetavar("ORG_ID"), Flag.withDescription("the organization the key belongs to")),
    name: Flag.String("name").pipe(Flag.withMetavar("NAME"), Flag.withDescription("a name to recognise the key by")),
    role: Flag.Literals("role", Permission.RoleName.literals).pipe(
      Flag.withDescription("a built-in role (or give --permission instead)"),
      Flag.optional
    ),
    permissions: Flag.Literals("permission", Permission.allPermissions).pipe(
      Flag.withDescription("a permission; repeat for several (instead of --role)"),
      Flag.atLeast(0)
    ),
    expiresInDays: Flag.String("expires-in-days").pipe(
      Flag.withMetavar("N|unlimited"),
      Flag.withDescription("days until the key expires, 1..365, or `unlimited`"),
      Flag.withDefault("90")
    )
  },
  (flags) =>
    Effect.gen(function*() {
      if (Option.isSome(flags.role) === flags.permissions.length > 0) {
        return yield* usage("keys create: give exactly one of --role or --permission (repeatable)")
      }
      const expiry = Schema.decodeUnknownResult(ExpiresInDays)(flags.expiresInDays.trim())
      if (Result.isFailure(expiry)) return yield* usage("--expires-in-days must be an integer from 1 to 365, or `unlimited`")
      const expiresInDays = expiry.success === "unlimited" ? null : expiry.success
      const request = Schema.decodeUnknownResult(ApiKey.ApiKeyCreateRequest)(
        Option.isSome(flags.role)
          ? { name: flags.name, role: flags.role.value, expiresInDays }
          : { name: flags.name, permissions: flags.permissions, expiresInDays }
      )
      if (Result.isFailure(request)) {
        return yield* usage(`invalid key: ${Input.fieldErrors(request.failure).map((e) => `${e.path}: ${e.message}`).join("; ")}`)
      }
      const orgId = Schema.decodeUnknownOption(Id.OrgId)(flags.org)
      if (Option.isNone(orgId)) return yield* usage(`--org: ${JSON.stringify(flags.org)} is not an organization id (org_…)`)
      const created = yield* withStore(
        flags.store,
        Effect.gen(function*() {
          const { organizations } = yield* OrganizationStore
          if (Option.isNone(yield* organizations.get(orgId.value))) {
            return yield* new CommandFailure({
              message: `no organization ${orgId.value} in ${ServeOptions.describeStore(flags.store)}`,
              exitCode: 1
            })
          }
          return yield* Workflows.ApiKeys.createApiKey(
            { orgId: orgId.value, actor: { kind: "system", name: "cli" }, correlationId: "cli-keys-create" },
            request.success
          )
        })
      )
      // the secret is printed here once; the store keeps only its hash
      yield* Console.log(JSON.stringify(created, null, 2))
    }).pipe(Effect.provide(quietLogs))
).pipe(Command.withDescription("create an API key and print it as JSON, its secret shown this once"))

const keys = Command.make("keys", {}, () => usage("give a subcommand: keys create (see image-policy keys --help)")).pipe(
  // the root help lists `keys` only: name its subcommand there
  Command.withDescription("manage API keys (keys create)"),
  Command.withSubcommands([keysCreate])
)

// secrets reseal ---------------------------------------------------------------------------------

const secretsReseal = Command.make("reseal", { store: ServeOptions.store }, ({ store }) =>
  Effect.gen(function*() {
    const key = yield* SecretKey.resolve(store, process.env).pipe(
      Effect.mapError((e) => new CommandFailure({ message: e.message, exitCode: 1 }))
    )
    const result = yield* withStore(store, Workflows.SecretKeys.resealAll(), key.base64, key.previous)
    yield* Console.log(JSON.stringify(result, null, 2))
    if (result.unopened.length > 0) {
      return yield* new CommandFailure({
        message: `${result.unopened.length} secret owner(s) hold values that neither ${SecretKey.envVar} nor ` +
          `${SecretKey.previousEnvVar} opens (listed above): set those secrets again through the API`,
        exitCode: 1
      })
    }
  }).pipe(Effect.provide(quietLogs))).pipe(
    Command.withDescription(
      `seal every stored secret again under ${SecretKey.envVar}, opening each with it or a key of ${SecretKey.previousEnvVar} (key rotation, docs/deploy.md)`
    )
  )

const secrets = Command.make("secrets", {}, () => usage("give a subcommand: secrets reseal (see image-policy secrets --help)")).pipe(
  Command.withDescription("manage the secrets at rest (secrets reseal)"),
  Command.withSubcommands([secretsReseal])
)

// users create, users set-password ---------------------------------------------------------------

const users = UsersCommand.make({
  usage,
  failure: (message) => new CommandFailure({ message, exitCode: 1 }),
  withStore: (spec, use) => withStore(spec, use),
  quietLogs
})

// image-policy -----------------------------------------------------------------------------------

const command = CommandLine.root([serve, migrate, seed, keys, users, secrets, CheckCommand.command])

const cli = Command.runWith(command, { version })

CommandLine.run(
  cli(invocation.args).pipe(
    // a bad seed file or serve setting: said as a command's failure is (exit 1)
    Effect.mapError((error) =>
      error instanceof ServeOptions.StartupError
        ? new CommandFailure({ message: error.message, details: error.details, exitCode: 1 })
        : error
    )
  )
)
