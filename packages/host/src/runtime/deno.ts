/**
 * The host on Deno: the application of App.ts as a fetch handler (`App.webHandler`) behind
 * `Deno.serve`, with the flags of `image-policy serve` (runtime/ServeOptions.ts, parsed by the same
 * effect/cli flags as the Node CLI):
 *
 *   deno run -A --unstable-no-legacy-abort packages/host/dist/runtime/deno.js --store memory --demo
 *
 * The store is built once here and shared by Boot (seed, demo key) and the handler, so what Boot
 * writes is what the handler serves even for the memory store. SIGTERM or SIGINT stops accepting,
 * lets in-flight requests finish, closes the store and exits 0; a second signal exits at once.
 */
// Deno runs Node's fs/path/readline through its `node:` compatibility layer, which is all the
// effect/cli environment needs; the HTTP server below is Deno's own.
import * as NodeServices from "@effect/platform-node/NodeServices"
import { StoreConfig } from "@image-policy/adapters"
import { Lease, version } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as App from "../App.js"
import { boot } from "../Boot.js"
import * as ClientAddress from "../http/ClientAddress.js"
import * as HostMetrics from "../metrics/HostMetrics.js"
import * as Otlp from "../metrics/Otlp.js"
import * as ComplianceSnapshotWorker from "../workers/ComplianceSnapshot.js"
import * as Leases from "../workers/Leases.js"
import * as ScanWorker from "../workers/Scan.js"
import * as SnoozeExpiryWorker from "../workers/SnoozeExpiry.js"
import * as SyncWorker from "../workers/Sync.js"
import * as WebhookDeliveryWorker from "../workers/WebhookDelivery.js"
import * as CommandLine from "./CommandLine.js"
import * as JsonLog from "./JsonLog.js"
import * as ServeOptions from "./ServeOptions.js"
import * as Terminal from "./Terminal.js"

// Only what this file uses, so no Deno type package is needed to build it.
declare const Deno: {
  readonly args: ReadonlyArray<string>
  readonly pid: number
  hostname(): string
  readonly env: { toObject(): Record<string, string> }
  readonly stdout: { isTerminal(): boolean }
  serve(
    options: {
      readonly port: number
      readonly hostname: string
      readonly onListen?: (address: { readonly hostname: string; readonly port: number }) => void
    },
    handler: (request: Request, info: { readonly remoteAddr: { readonly hostname: string } }) => Promise<Response>
  ): { readonly finished: Promise<void>; shutdown(): Promise<void> }
  addSignalListener(signal: "SIGTERM" | "SIGINT", handler: () => void): void
  exit(code: number): never
}

const commandLineError = (message: string): never => {
  console.error(`image-policy: ${message}`)
  return Deno.exit(2)
}
const withFormat = Terminal.takeLogFormat(Deno.args)
const argv = Result.getOrElse(CommandLine.takeLogLevel(withFormat.args), commandLineError)
// as on Node (cli.ts): the flag, else IMAGE_POLICY_LOG_FORMAT, else by whether stdout is a terminal
const logSettings = Terminal.logSettings(withFormat.value, Deno.env.toObject(), Deno.stdout.isTerminal())
const logFormat: JsonLog.Format = "error" in logSettings ? commandLineError(logSettings.error) : logSettings

type DenoServer = ReturnType<typeof Deno.serve>

/** Listens; answers once the socket is bound (Deno.serve throws when it cannot bind, e.g. the port is taken). */
const listen = (config: ServeOptions.ServeConfig, handler: (request: Request, context: Context.Context<never>) => Promise<Response>) =>
  Effect.callback<{ readonly server: DenoServer; readonly hostname: string; readonly port: number }, ServeOptions.StartupError>(
    (resume) => {
      // onListen may run before Deno.serve returns the server: answer once both are known
      let bound: { readonly hostname: string; readonly port: number } | undefined
      let server: DenoServer | undefined
      let answered = false
      const answer = () => {
        if (answered || bound === undefined || server === undefined) return
        answered = true
        resume(Effect.succeed({ server, hostname: bound.hostname, port: bound.port }))
      }
      try {
        server = Deno.serve({
          port: config.port,
          hostname: config.host,
          onListen: (address) => {
            bound = address
            answer()
          }
        }, (request, info) => handler(request, ClientAddress.context(info.remoteAddr.hostname)))
      } catch (e) {
        return resume(Effect.fail(new ServeOptions.StartupError({ message: `cannot start: ${ServeOptions.reasonOf(e)}`, details: [] })))
      }
      answer()
    }
  )

const serve = (flags: ServeOptions.Flags) =>
  Effect.gen(function*() {
    const config = yield* ServeOptions.resolve(flags, Deno.env.toObject(), argv.level)
    const logging = Layer.merge(
      JsonLog.loggerLayer(config.logLevel, JsonLog.bufferDefaults, logFormat),
      Layer.succeed(References.TracerEnabled, config.tracing || config.telemetry?.traces !== undefined)
    )
    const scope = yield* Scope.make()
    const closeStore = Scope.close(scope, Exit.void)
    const running = yield* Effect.gen(function*() {
      const store = yield* Layer.buildWithScope(StoreConfig.layer(config.store), scope).pipe(
        Effect.catchCause((cause) =>
          Effect.fail(
            new ServeOptions.StartupError({
              message: `cannot open the store ${ServeOptions.describeStore(config.store)}: ${
                ServeOptions.scrub(ServeOptions.reasonOf(Cause.squash(cause)), config.store)
              }`,
              details: []
            })
          )
        )
      )
      const storeLayer = Layer.succeedContext(store)
      // OTLP metrics need a registry to export even when `GET /metrics` is off
      const metrics = config.metrics ?? (config.telemetry?.metrics === undefined ? undefined : HostMetrics.make({ prometheus: false }))
      const serviceOptions = {
        secretKey: config.secretKey.base64,
        previousSecretKeys: config.secretKey.previous,
        allowUnsafeWebhookTargets: config.allowUnsafeWebhookTargets,
        metrics
      }
      const built = yield* Layer.buildWithScope(App.services(storeLayer, serviceOptions), scope)
      // the exporters (metrics/Otlp.ts) live in the store's scope: closing it on shutdown flushes them
      const telemetry = config.telemetry === undefined
        ? Context.empty()
        : yield* Layer.buildWithScope(Otlp.layer(config.telemetry, metrics), scope).pipe(Effect.provide(built), Effect.provide(logging))
      const services = Context.merge(built, telemetry)
      const booted = yield* boot({ seed: config.seed, seedUpdate: config.seedUpdate, demo: config.demo }).pipe(
        Effect.provide(services),
        Effect.provide(logging)
      )
      // the logger and tracer settings travel in the layer: the handler's runtime is built from it
      const web = App.webHandler(config.app, Layer.mergeAll(storeLayer, logging, Layer.succeedContext(telemetry)), serviceOptions)
      const listening = yield* listen(config, web.handler).pipe(Effect.onError(() => Effect.promise(() => web.dispose())))
      // leases are owned by this id: the instance, then what is unique per start (workers/Leases.ts)
      const instance = config.instanceId ?? Lease.instanceOfHost(Deno.hostname())
      const workerId = Leases.ownerOf(instance, Deno.pid)
      yield* Leases.releaseEarlier(instance, workerId).pipe(Effect.provide(services), Effect.provide(logging))
      // closing the scope interrupts the workers forked below first, then runs this, then closes the
      // store: what they still held is taken up at once by another host (no drain period on Deno)
      yield* Scope.addFinalizer(
        scope,
        Leases.releaseOwn(workerId).pipe(Effect.provide(services), Effect.provide(logging))
      )
      const publicUrl = config.app.publicUrl ??
        `http://${listening.hostname.includes(":") ? `[${listening.hostname}]` : listening.hostname}:${listening.port}`
      // the delivery worker lives in the store's scope: closing it on shutdown stops the worker first
      yield* WebhookDeliveryWorker.run({ ...WebhookDeliveryWorker.defaults(publicUrl, workerId), schedule: config.webhookRetrySchedule })
        .pipe(
          Effect.provide(services),
          Effect.provide(logging),
          Effect.forkIn(scope)
        )
      yield* SyncWorker.run(SyncWorker.defaults(workerId)).pipe(
        Effect.provide(services),
        Effect.provide(logging),
        Effect.forkIn(scope)
      )
      yield* ScanWorker.run(ScanWorker.defaults(workerId)).pipe(
        Effect.provide(services),
        Effect.provide(logging),
        Effect.forkIn(scope)
      )
      yield* ScanWorker.runRoutine(ScanWorker.routineDefaults(workerId)).pipe(
        Effect.provide(services),
        Effect.provide(logging),
        Effect.forkIn(scope)
      )
      yield* SnoozeExpiryWorker.run(SnoozeExpiryWorker.defaults(workerId)).pipe(
        Effect.provide(services),
        Effect.provide(logging),
        Effect.forkIn(scope)
      )
      yield* ComplianceSnapshotWorker.run(ComplianceSnapshotWorker.defaults(workerId)).pipe(
        Effect.provide(services),
        Effect.provide(logging),
        Effect.forkIn(scope)
      )
      return { ...listening, booted, web }
    }).pipe(Effect.onError(() => closeStore))
    stopOnSignal(
      (signal) => Effect.runSync(Effect.logInfo("stopping").pipe(Effect.annotateLogs({ signal }), Effect.provide(logging))),
      async () => {
        // shutdown() stops accepting and resolves once the requests in flight are answered
        await running.server.shutdown()
        await running.web.dispose()
        await Effect.runPromise(closeStore)
      }
    )
    const host = running.hostname.includes(":") ? `[${running.hostname}]` : running.hostname
    const url = `http://${host}:${running.port}`
    yield* ServeOptions.startupLog(config, url, running.booted).pipe(Effect.provide(logging))
    if (running.booted.demo) yield* Console.log(ServeOptions.demoBanner(running.booted.demo, url, config.app.publicUrl))
    return yield* Effect.never
  })

/** First SIGTERM/SIGINT: stop gracefully, then exit 0 (1 if stopping failed); a second one exits at once. */
const stopOnSignal = (log: (signal: string) => void, stop: () => Promise<void>) => {
  let stopping = false
  const on = (signal: "SIGTERM" | "SIGINT") => () => {
    if (stopping) Deno.exit(signal === "SIGINT" ? 130 : 143)
    stopping = true
    log(signal)
    stop().then(() => Deno.exit(0), (e) => {
      console.error(`image-policy: the host did not stop cleanly: ${String(e)}`)
      Deno.exit(1)
    })
  }
  Deno.addSignalListener("SIGTERM", on("SIGTERM"))
  Deno.addSignalListener("SIGINT", on("SIGINT"))
}

const command = Command.make("serve", ServeOptions.options, serve).pipe(
  Command.withDescription(
    "run the HTTP service (/api/v1) on Deno until SIGTERM or SIGINT; --log-level info|debug|warning|error sets the least severe log line written (default info)"
  )
)

const cli = Command.runWith(command, { version })

Effect.runPromiseExit(cli(argv.args).pipe(Effect.provide(Layer.merge(NodeServices.layer, CommandLine.cliLayer)))).then((result) => {
  if (Exit.isSuccess(result)) return Deno.exit(0)
  const failure = Cause.findErrorOption(result.cause)
  if (Option.isNone(failure)) {
    console.error(`image-policy: unexpected error\n${Cause.pretty(result.cause)}`)
    return Deno.exit(1)
  }
  const error: unknown = failure.value
  // effect/cli has presented its own usage errors already (CommandLine.cliLayer)
  if (CliError.isCliError(error)) return Deno.exit(2)
  if (error instanceof ServeOptions.StartupError) {
    console.error(`image-policy: ${error.message}`)
    for (const line of error.details) console.error(line)
    return Deno.exit(1)
  }
  console.error(`image-policy: ${error instanceof Error ? error.message : String(error)}`)
  return Deno.exit(1)
})
