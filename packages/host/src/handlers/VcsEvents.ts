/**
 * Provider webhooks (api/VcsEvents.ts): pushes and pull/merge request events. Checks, first failure
 * wins: 413 (body over the limit) -> 401 (unknown connection, a connection of the other provider, no
 * webhook secret configured, missing or wrong signature or token) -> 400 (not JSON, a push or
 * request event not of the provider's shape) -> 401 (a GitHub delivery without an id, a push or
 * merge the provider dates more than 5 minutes ago, a delivery id seen in the last 10 minutes). The
 * first three are the edge's: what the providers send and how they sign it is the adapters'
 * `VcsPushEvents`; the rest, the sync and the merge, is the core's `Workflows.PushEvents.receive`.
 */
import { VcsHttp, VcsPushEvents } from "@image-policy/adapters"
import { Api } from "@image-policy/client/api/Api"
import { PushNotAuthenticated } from "@image-policy/client/api/VcsEvents"
import { type Id, Input, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as BodyGuard from "../http/BodyGuard.js"
import * as Problems from "../http/Problems.js"
import { RequestInfo } from "../http/RequestInfo.js"

export interface Options {
  readonly maxBodyBytes: number
  /** Reads `webhookSecretEnv` variables; default `process.env` where there is one. */
  readonly env?: VcsHttp.Env
}

/** The JSON of a verified body, or the 400 that says it is not JSON. */
const decodeJson = (body: Uint8Array<ArrayBuffer>) => {
  try {
    return Effect.succeed<unknown>(JSON.parse(new TextDecoder().decode(body)))
  } catch {
    return Effect.fail(Problems.make({
      status: 400,
      type: "/problems/malformed-json",
      detail: "the event is not JSON; set the webhook's content type to application/json"
    }))
  }
}

/** A decoded event, or the 400 naming the fields that do not have the provider's shape. */
const shaped = <A>(decoded: Result.Result<A, Schema.SchemaError>, what: string) =>
  Result.isFailure(decoded)
    ? Effect.fail(Problems.validation(Input.fieldErrors(decoded.failure), `the ${what} does not have the provider's shape; see errors`))
    : Effect.succeed(decoded.success)

export const VcsEventsHandlers = (options: Options) =>
  HttpApiBuilder.group(Api, "vcsEvents", (handlers) => {
    const env = options.env ?? VcsHttp.defaultEnv

    const receive = (provider: VcsPushEvents.Provider, connectionId: Id.VcsConnectionId, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        // the exact bytes: the signature covers them
        const body = yield* BodyGuard.readBytes(request, options.maxBodyBytes)
        const headers = request.headers
        const located = Option.getOrUndefined(yield* Workflows.Sync.locateConnection(connectionId))
        if (located === undefined || !(yield* VcsPushEvents.isSignedFor(provider, located, env, body, headers))) {
          yield* Effect.logWarning("provider push refused").pipe(Effect.annotateLogs({ provider, connectionId, reason: "signature" }))
          return yield* new PushNotAuthenticated()
        }
        const delivery = VcsPushEvents.deliveryOf(provider, headers)
        const json = delivery.isPush || delivery.isRequest ? yield* decodeJson(body) : undefined
        const { merged, synced } = yield* Workflows.PushEvents.receive(
          {
            orgId: located.orgId,
            connection: located.connection,
            deliveryId: delivery.deliveryId,
            idRequired: delivery.idRequired,
            push: delivery.isPush ? yield* shaped(VcsPushEvents.parsePush(provider, json), "push event") : undefined,
            merge: delivery.isRequest ? yield* shaped(VcsPushEvents.parseMerge(provider, json), "request event") : undefined
          },
          (yield* RequestInfo)?.id ?? ""
        )
        return { synced, merged: merged.map((r) => ({ id: r.id, repositoryId: r.repositoryId, number: r.number })) }
      }).pipe(
        Problems.orProblem,
        Effect.map((answer) => HttpServerResponse.jsonUnsafe(answer, { status: 202 }))
      )

    return handlers
      // raw: the body is left unread, so its exact bytes reach the signature check
      .handleRaw("githubPushEvent", ({ params, request }) => receive("github", params.connectionId, request))
      .handleRaw("gitlabPushEvent", ({ params, request }) => receive("gitlab", params.connectionId, request))
  })
