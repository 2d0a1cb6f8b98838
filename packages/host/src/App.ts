/**
 * The host composed: the `/api/v1` definition, its handlers, authentication and the request
 * lifecycle, over the services the workflows need. Node (runtime/node.ts) and Deno
 * (runtime/deno.ts) serve this same application.
 */
import {
  AesGcmSecretBox,
  ApiKeyHash,
  HttpWebhookSender,
  MemoryPushDeliveryIds,
  RandomIds,
  ScryptPasswordHasher,
  VcsProviders
} from "@image-policy/adapters"
import { Api } from "@image-policy/client/api/Api"
import { Session, type Stores } from "@image-policy/core"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Layer from "effect/Layer"
import { ApiKeysHandlers } from "./handlers/ApiKeys.js"
import { AuditHandlers } from "./handlers/Audit.js"
import { DecisionsHandlers } from "./handlers/Decisions.js"
import { HealthHandlers } from "./handlers/Health.js"
import { MembersHandlers } from "./handlers/Members.js"
import { MetaHandlers } from "./handlers/Meta.js"
import { OrganizationHandlers } from "./handlers/Organization.js"
import { PolicyHandlers } from "./handlers/Policy.js"
import { ReportsHandlers } from "./handlers/Reports.js"
import { RepositoriesHandlers } from "./handlers/Repositories.js"
import { RolesHandlers } from "./handlers/Roles.js"
import { ScansHandlers } from "./handlers/Scans.js"
import { SessionHandlers } from "./handlers/Session.js"
import { SnoozeRequestsHandlers } from "./handlers/SnoozeRequests.js"
import { VcsEventsHandlers } from "./handlers/VcsEvents.js"
import { WebhooksHandlers } from "./handlers/Webhooks.js"
// organization administration (issue 15)
import { SettingsHandlers } from "./handlers/Settings.js"
import { TeamsHandlers } from "./handlers/Teams.js"
import { VcsConnectionsHandlers } from "./handlers/VcsConnections.js"
import * as Auth from "./http/Auth.js"
import * as BodyGuard from "./http/BodyGuard.js"
import * as Console from "./http/Console.js"
import * as Lifecycle from "./http/Lifecycle.js"
import * as Problems from "./http/Problems.js"
import * as RateLimit from "./http/RateLimit.js"
import type * as SignInThrottle from "./http/SignInThrottle.js"
import * as MetricsEndpoint from "./metrics/Endpoint.js"
import * as HostMetrics from "./metrics/HostMetrics.js"

export interface Options {
  /** Base URL clients reach the service at (OpenAPI `servers`, CloudEvent `dataschema`). */
  readonly publicUrl?: string | undefined
  /** Per-key token bucket; `null` turns limiting off. */
  readonly rateLimit: RateLimit.Options | null
  readonly maxBodyBytes: number
  readonly accessLog: boolean
  /**
   * The web console at `/` (http/Console.ts): the folder of its build (`serve --console-dir`),
   * `false` for none, absent for the `@image-policy/console` package's `dist` when it is built.
   */
  readonly console?: string | false | undefined
  /** How long browser sessions live (`--session-idle-timeout`, `--session-max-age`). */
  readonly sessionLifetimes: Session.Lifetimes
  /** Refused sign-ins allowed per account and per client address; default `SignInThrottle.defaults`. */
  readonly signInThrottle?: SignInThrottle.Options | undefined
}

export const defaults: Options = {
  rateLimit: RateLimit.defaults,
  maxBodyBytes: BodyGuard.defaultMaxBodyBytes,
  accessLog: true,
  sessionLifetimes: Session.defaultLifetimes
}

/**
 * The API's routes with every handler, its endpoint middleware (authentication, problem answers) and
 * the request lifecycle, registered on the runtime's `HttpRouter`; needs the workflows' services (see
 * `services`). The platform records a request span only while the tracer is on (`--tracing`).
 */
export const apiLayer = (options: Options) =>
  Layer.mergeAll(
    HttpApiBuilder.layer(Api).pipe(
      Layer.provide([
        MetaHandlers(options),
        OrganizationHandlers,
        RepositoriesHandlers,
        ScansHandlers,
        PolicyHandlers,
        ApiKeysHandlers,
        SnoozeRequestsHandlers,
        AuditHandlers,
        WebhooksHandlers,
        VcsEventsHandlers(options),
        ReportsHandlers,
        // organization administration (issue 15)
        TeamsHandlers,
        VcsConnectionsHandlers,
        SettingsHandlers,
        MembersHandlers,
        RolesHandlers,
        // the web console's sessions (issue 17)
        SessionHandlers(options),
        // the decision API (issue 18)
        DecisionsHandlers,
        HealthHandlers
      ]),
      Layer.provide([Auth.layer(options), Problems.layer])
    ),
    Lifecycle.layer(options),
    // GET /metrics, only when the services carry a metrics registry (ServiceOptions.metrics)
    MetricsEndpoint.layer,
    // the web console at `/` (issue 17): every other GET path the routes above do not answer
    Console.layer(options.console)
  )

export interface ServiceOptions {
  /** Base64 of the 32-byte key that seals webhook endpoints and secrets (SecretKey.ts); a fresh one when absent. */
  readonly secretKey?: string | undefined
  /** `IMAGE_POLICY_SECRET_KEY_PREVIOUS`: keys that still open what they sealed, never seal (key rotation). */
  readonly previousSecretKeys?: ReadonlyArray<string> | undefined
  /** `IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS=1`: plain HTTP and non-public webhook targets, for local testing only. */
  readonly allowUnsafeWebhookTargets?: boolean | undefined
  /** Options of the VCS providers, e.g. a `Fixture.make()` provider whose files a test changes at run time. */
  readonly vcs?: VcsProviders.Options | undefined
  /** This host's metrics registry (`HostMetrics.make()`, `serve --metrics`): `GET /metrics` and its series; absent: off. */
  readonly metrics?: HostMetrics.Registry | undefined
  /** The password KDF's parameters (`ScryptPasswordHasher.defaults`); tests pass cheaper ones. */
  readonly passwordHashing?: ScryptPasswordHasher.Parameters | undefined
}

/** Ids, key hashing (cached), password hashing, sealing, the webhook sender, the VCS providers and the push replay memory around the stores. */
export const services = <E, R>(store: Layer.Layer<Stores, E, R>, options: ServiceOptions = {}) =>
  Layer.mergeAll(
    store,
    RandomIds.layer,
    ApiKeyHash.cachedLayer(),
    ScryptPasswordHasher.layer(options.passwordHashing),
    // the key was validated at start (SecretKey.resolve): a bad one here is a programming error
    Layer.orDie(AesGcmSecretBox.layerFromKey(options.secretKey ?? AesGcmSecretBox.generateKey(), options.previousSecretKeys)),
    HttpWebhookSender.layer({ allowUnsafeTargets: options.allowUnsafeWebhookTargets === true }),
    VcsProviders.layer(options.vcs),
    MemoryPushDeliveryIds.layer(),
    Layer.succeed(HostMetrics.HostMetrics, options.metrics)
  )

/**
 * The same application as a `(Request) => Promise<Response>` handler (Deno, tests, any fetch
 * runtime), and `dispose` to release it. The host writes its own access log (`accessLog`).
 */
export const webHandler = <E>(options: Options, store: Layer.Layer<Stores, E>, serviceOptions: ServiceOptions = {}) =>
  HttpRouter.toWebHandler(
    // merged, not only provided: the handlers' services are request requirements, which the handler
    // finds in the application's own context
    apiLayer(options).pipe(Layer.provide(HttpServer.layerServices), Layer.provideMerge(services(store, serviceOptions))),
    { disableLogger: true }
  )
