/**
 * The host on Node: the application of App.ts on `node:http` through @effect/platform-node.
 * `start` returns once the server listens; `stop` (and SIGTERM in the CLI) stops accepting and
 * stops the workers taking new work, lets in-flight requests and work finish (work for at most
 * `drainMs`), releases the leases of the work left, then closes the store.
 *
 * Leases are owned by `instance/start` (core Lease.ts): before its workers start, a host releases
 * what earlier processes of its instance still hold (a crash, a kill), so that work is taken up at
 * once instead of when the leases expire.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Lease, type Stores } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { HttpRouter, HttpServer } from "effect/http"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import { createServer } from "node:http"
import { hostname } from "node:os"
import * as App from "../App.js"
import { boot, type BootOptions, type BootResult } from "../Boot.js"
import * as HostMetrics from "../metrics/HostMetrics.js"
import * as Otlp from "../metrics/Otlp.js"
import * as ComplianceSnapshotWorker from "../workers/ComplianceSnapshot.js"
import * as Leases from "../workers/Leases.js"
import * as Workers from "../workers/Running.js"
import * as ScanWorker from "../workers/Scan.js"
import * as SnoozeExpiryWorker from "../workers/SnoozeExpiry.js"
import * as Stopping from "../workers/Stopping.js"
import * as SyncWorker from "../workers/Sync.js"
import * as WebhookDeliveryWorker from "../workers/WebhookDelivery.js"
import * as JsonLog from "./JsonLog.js"
import { loggerLayer } from "./JsonLog.js"

export interface StartOptions extends BootOptions {
  readonly port: number
  readonly host: string
  readonly store: Layer.Layer<Stores, unknown>
  readonly app: App.Options
  /** Effect spans for every request; off by default (they cost about a quarter of the throughput). */
  readonly tracing?: boolean | undefined
  /** OTLP export of traces and metrics (`OTEL_EXPORTER_OTLP_ENDPOINT`, metrics/Otlp.ts); absent: none. */
  readonly telemetry?: Otlp.Settings | undefined
  readonly logLevel?: LogLevel.LogLevel | undefined
  /** JSON lines (default) or readable lines (JsonLog.Format; the CLI picks by Terminal.logFormat). */
  readonly logFormat?: JsonLog.Format | undefined
  readonly services?: App.ServiceOptions | undefined
  /** The webhook delivery worker of this process; `false` runs none (another process delivers). */
  readonly deliveryWorker?: Partial<WebhookDeliveryWorker.Options> | false | undefined
  /** The external phase poll worker of this process (default every 60 s); `false` runs none. */
  readonly syncWorker?: Partial<SyncWorker.Options> | false | undefined
  /** The branch scan worker of this process (4 scans at once by default); `false` runs none. */
  readonly scanWorker?: Partial<ScanWorker.Options> | false | undefined
  /** The routine tick of this process (every 60 s by default); `false` runs none. */
  readonly routineWorker?: Partial<ScanWorker.RoutineOptions> | false | undefined
  /** The snooze expiry worker of this process (every 30 s by default); `false` runs none. */
  readonly snoozeExpiryWorker?: Partial<SnoozeExpiryWorker.Options> | false | undefined
  /** The daily compliance snapshot worker of this process (looks every 10 min); `false` runs none. */
  readonly snapshotWorker?: Partial<ComplianceSnapshotWorker.Options> | false | undefined
  /**
   * The clock of the whole host (requests and workers); default the system clock. Tests pass one
   * that runs ahead of the system clock to let days pass (routines, cooldowns) without waiting.
   */
  readonly clock?: Clock.Clock | undefined
  /**
   * The stable name of this host among those sharing a store (`--instance-id`; default its
   * hostname): a start releases the leases earlier processes of the same instance hold. Two hosts
   * running at once must not share one.
   */
  readonly instanceId?: string | undefined
  /** How long a graceful stop waits for the work in flight before it interrupts and releases it (default 10 s). */
  readonly drainMs?: number | undefined
}

export const defaultDrainMs = 10_000

export interface Running {
  readonly url: string
  readonly port: number
  readonly boot: BootResult
  /** Stops accepting, waits for in-flight requests, closes the store. */
  readonly stop: () => Promise<void>
}

/** Structured JSON logs on stdout, as the server writes them (runtime/JsonLog.ts). */
export { loggerLayer } from "./JsonLog.js"

export const start = (options: StartOptions): Promise<Running> => {
  const server = createServer({ keepAliveTimeout: 5_000 })
  const ready = Deferred.makeUnsafe<{ readonly port: number; readonly boot: BootResult }, unknown>()
  // leases are owned by this id: the instance, then what is unique per start
  const instance = options.instanceId ?? Lease.instanceOfHost(hostname())
  const workerId = Leases.ownerOf(instance, process.pid)
  const stopRequested = Deferred.makeUnsafe<void>()
  const serverClosed = Deferred.makeUnsafe<void>()
  const stopping = Stopping.make()
  const program = Effect.scoped(Effect.gen(function*() {
    // the workers started below, for readiness (`GET /readyz`)
    const workers = Workers.make()
    // OTLP metrics need a registry to export even when `GET /metrics` is off
    const metrics = options.services?.metrics ??
      (options.telemetry?.metrics === undefined ? undefined : HostMetrics.make({ prometheus: false }))
    const built = Context.add(
      Context.add(yield* Layer.build(App.services(options.store, { ...options.services, metrics })), Workers.RunningWorkers, workers),
      Stopping.Stopping,
      stopping
    )
    // the exporters' Tracer reaches every request and worker started below
    const services = options.telemetry === undefined
      ? built
      : Context.merge(built, yield* Layer.build(Otlp.layer(options.telemetry, metrics)).pipe(Effect.provide(built)))
    const booted = yield* boot(options).pipe(Effect.provide(services))
    yield* Leases.releaseEarlier(instance, workerId).pipe(Effect.provide(services))
    // the workers that hold leases, waited for (up to `drainMs`) by a graceful stop
    const leased: Array<Fiber.Fiber<unknown, unknown>> = []
    // the host writes its own access log (http/Lifecycle.ts): the platform's is off
    const serving = HttpRouter.serve(App.apiLayer(options.app), {
      disableLogger: true,
      disableListenLog: true
    }).pipe(
      Layer.provide(Layer.succeedContext(services)),
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port: options.port, host: options.host }))
    )
    const context = yield* Layer.build(serving)
    const address = (yield* Effect.provide(HttpServer.HttpServer, context)).address
    const port = address._tag === "UnixPathAddress" ? options.port : address.port
    if (options.deliveryWorker !== false) {
      const publicUrl = options.app.publicUrl ?? `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`
      workers.add(
        "webhookDelivery",
        yield* WebhookDeliveryWorker.run({ ...WebhookDeliveryWorker.defaults(publicUrl, workerId), ...options.deliveryWorker, workerId })
          .pipe(Effect.provide(services), Effect.forkScoped, Effect.tap((fiber) => Effect.sync(() => leased.push(fiber))))
      )
    }
    if (options.syncWorker !== false) {
      workers.add(
        "sync",
        yield* SyncWorker.run({ ...SyncWorker.defaults(workerId), ...options.syncWorker }).pipe(
          Effect.provide(services),
          Effect.forkScoped
        )
      )
    }
    if (options.scanWorker !== false) {
      workers.add(
        "scan",
        yield* ScanWorker.run({ ...ScanWorker.defaults(workerId), ...options.scanWorker, workerId }).pipe(
          Effect.provide(services),
          Effect.forkScoped,
          Effect.tap((fiber) => Effect.sync(() => leased.push(fiber)))
        )
      )
    }
    if (options.routineWorker !== false) {
      workers.add(
        "routine",
        yield* ScanWorker.runRoutine({ ...ScanWorker.routineDefaults(workerId), ...options.routineWorker }).pipe(
          Effect.provide(services),
          Effect.forkScoped
        )
      )
    }
    if (options.snoozeExpiryWorker !== false) {
      workers.add(
        "snoozeExpiry",
        yield* SnoozeExpiryWorker.run({ ...SnoozeExpiryWorker.defaults(workerId), ...options.snoozeExpiryWorker }).pipe(
          Effect.provide(services),
          Effect.forkScoped
        )
      )
    }
    if (options.snapshotWorker !== false) {
      workers.add(
        "complianceSnapshot",
        yield* ComplianceSnapshotWorker.run({ ...ComplianceSnapshotWorker.defaults(workerId), ...options.snapshotWorker }).pipe(
          Effect.provide(services),
          Effect.forkScoped
        )
      )
    }
    yield* Deferred.succeed(ready, { port, boot: booted })
    yield* Deferred.await(stopRequested)
    // graceful stop: no new work; what is in flight ends within the bound or is interrupted, and
    // what this process still holds is released for another host (or this instance's next start)
    yield* Deferred.succeed(stopping, undefined)
    const drained = yield* Fiber.awaitAll(leased).pipe(Effect.timeoutOption(Duration.millis(options.drainMs ?? defaultDrainMs)))
    if (drained._tag === "None") yield* Effect.logWarning("stopping: work still in flight was interrupted and released")
    yield* Fiber.interruptAll(leased)
    yield* Leases.releaseOwn(workerId).pipe(Effect.provide(services))
    // the requests in flight still use the store: it closes (with this scope) once they are answered
    yield* Deferred.await(serverClosed)
  })).pipe(
    Effect.tapCause((cause) => Deferred.failCause(ready, cause)),
    (effect) => options.clock === undefined ? effect : Effect.provideService(effect, Clock.Clock, options.clock),
    Effect.provide(loggerLayer(options.logLevel, JsonLog.bufferDefaults, options.logFormat)),
    Effect.provideService(References.TracerEnabled, options.tracing === true || options.telemetry?.traces !== undefined)
  )
  const fiber = Effect.runFork(program)
  return Effect.runPromise(Deferred.await(ready)).then(({ boot: booted, port }) => ({
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
    boot: booted,
    stop: () => {
      // the workers stop taking work while the server stops accepting
      Deferred.doneUnsafe(stopRequested, Exit.void)
      return new Promise<void>((resolve) => {
        // stop accepting and wait for in-flight requests; idle keep-alive sockets are closed at once
        server.close(() => resolve())
        server.closeIdleConnections()
        // a connection whose request was in flight turns idle once answered: close it then too
        const sweep = setInterval(() => server.closeIdleConnections(), 50)
        server.once("close", () => clearInterval(sweep))
      }).then(() => {
        Deferred.doneUnsafe(serverClosed, Exit.void)
        return Effect.runPromise(Fiber.await(fiber))
      }).then((exit) => {
        if (Exit.isFailure(exit) && !Exit.hasInterrupts(exit)) throw new Error("the host did not stop cleanly")
      })
    }
  }))
}
