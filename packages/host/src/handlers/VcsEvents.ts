/**
 * Provider push webhooks (api/VcsEvents.ts). Checks, first failure wins: 413 (body over the
 * limit) -> 401 (unknown connection, a connection of the other provider, no webhook secret
 * configured, missing or wrong signature or token) -> 400 (not JSON, not a push event of the
 * provider's shape) -> 401 (a delivery id seen in the last 10 minutes, a GitHub push older than
 * 5 minutes). Only then does the core decide which external phases the push concerns
 * (`MappingsFile.phasesTouchedByPush`) and sync them (`Workflows.Sync.syncPushed`). What the
 * providers send and how they sign it is the adapters' `VcsPushEvents`; this handler orders the
 * checks, remembers delivery ids and answers problems.
 *
 * Delivery ids are remembered per process: several hosts behind one address each refuse the
 * replays they see, and a replay another host accepts only repeats an idempotent sync.
 */
import { VcsHttp, VcsPushEvents } from "@image-policy/adapters"
import { type Id, Input, MappingsFile, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.js"
import * as BodyGuard from "../http/BodyGuard.js"
import * as Problems from "../http/Problems.js"
import { RequestInfo } from "../http/RequestInfo.js"

/** No valid signature: unknown connection, other provider, no secret configured, missing or wrong signature. */
export class PushNotAuthenticated extends Schema.TaggedError<PushNotAuthenticated>()("PushNotAuthenticated", {}) {}
/** The delivery id was already received recently. */
export class PushReplayed extends Schema.TaggedError<PushReplayed>()("PushReplayed", {}) {}
/** The push happened too long ago to be a fresh delivery. */
export class PushStale extends Schema.TaggedError<PushStale>()("PushStale", {}) {}

/** How long a delivery id is remembered (longer than `MappingsFile.maxPushAgeMs`, the age a push may have). */
export const replayWindowMs = 10 * 60_000
const rememberedDeliveries = 10_000

export interface Options {
  readonly maxBodyBytes: number
  /** Reads `webhookSecretEnv` variables; default `process.env` where there is one. */
  readonly env?: VcsHttp.Env
}

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

    const receive = (provider: VcsPushEvents.Provider, connectionId: Id.VcsConnectionId, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const info = yield* RequestInfo
        // the exact bytes: the signature covers them
        const body = yield* BodyGuard.readBytes(request, options.maxBodyBytes)
        const headers = request.headers

        const located = yield* Workflows.Sync.locateConnection(connectionId)
        const connection = Option.getOrUndefined(located)
        const secret = connection === undefined || connection.connection.provider !== provider
          ? undefined
          : yield* VcsPushEvents.webhookSecretOf(connection.settings, env, connectionId)
        const signed = secret === undefined ? false : yield* VcsPushEvents.verify(provider, secret, body, headers)
        if (!signed || connection === undefined) {
          yield* Effect.logWarning("provider push refused").pipe(Effect.annotateLogs({ provider, connectionId, reason: "signature" }))
          return yield* new PushNotAuthenticated()
        }

        const delivery = VcsPushEvents.deliveryOf(provider, headers)
        const now = yield* Clock.currentTimeMillis
        if (delivery.idRequired && delivery.deliveryId === undefined) return yield* new PushReplayed()

        let parsed: VcsPushEvents.ParsedPush | undefined
        if (delivery.isPush) {
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
          const decoded = VcsPushEvents.parsePush(provider, json)
          if (Result.isFailure(decoded)) {
            return yield* Effect.fail(Problems.validation(
              Input.fieldErrors(decoded.failure),
              "the push event does not have the provider's shape; see errors"
            ))
          }
          parsed = decoded.success
          if (MappingsFile.isStalePush(parsed.pushedAt, now)) return yield* new PushStale()
        }
        if (delivery.deliveryId !== undefined && !firstDelivery(`${connectionId}|${delivery.deliveryId}`, now)) {
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
        Effect.map((answer) => HttpServerResponse.jsonUnsafe(answer, { status: 202 }))
      )

    return handlers
      // raw: the body is left unread, so its exact bytes reach the signature check
      .handleRaw("githubPushEvent", ({ params, request }) => receive("github", params.connectionId, request))
      .handleRaw("gitlabPushEvent", ({ params, request }) => receive("gitlab", params.connectionId, request))
  })
