/**
 * A typed client of the decision API (`POST /api/v1/org/{orgId}/rpc`, docs/decision-api.md) for
 * Node and the browser, over the platform's `fetch`. Effect RPC has no streaming requests, so
 * `resolve` cuts the caller's requests into calls (at most `maxRequestsPerCall` requests and
 * `maxBodyBytes` per call, the host's limits) and concatenates the answers: a stream of requests in,
 * a stream of decisions out, in the same order.
 */
import { type Decision, Workflows } from "@image-policy/core"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as RpcClient from "effect/rpc/RpcClient"
import type { RpcClientError } from "effect/rpc/RpcClientError"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Problem } from "./api/Problem.js"
import type { ResolutionView } from "./api/Repositories.js"
import { type DecisionError, DecisionRpcs, maxRequestsPerCall } from "./rpc/Decisions.js"
import * as Ndjson from "./rpc/Ndjson.js"

export interface Options {
  /** Where the service answers, e.g. `https://policy.example.com`. */
  readonly baseUrl: string | URL
  readonly orgId: string
  /** An API key holding `policy:read`, sent as `x-api-key`. */
  readonly apiKey: string
  /** The host's request body limit (`serve --max-body-bytes`); default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/**
 * Why a call failed: an unknown repository or untracked branch (`DecisionError`, its `path` naming
 * `requests[i].branch` with `i` the position in the caller's stream), a problem the service answered
 * (`Problem`: 401, 403, 404, 413, 429 ...), or the transport (`RpcClientError`).
 */
export type DecisionClientError = DecisionError | Problem | RpcClientError

export interface DecisionClient {
  /** One decision per request, in request order. */
  readonly resolve: <E = never, R = never>(
    requests: Iterable<Decision.DecisionRequest> | Stream.Stream<Decision.DecisionRequest, E, R>
  ) => Stream.Stream<Decision.Decision, DecisionClientError | E, R>
  /** The REST resolve's answer for one request, its `considered` list included. */
  readonly explain: (request: Decision.DecisionRequest) => Effect.Effect<typeof ResolutionView.Type, DecisionClientError>
}

const defaultMaxBodyBytes = 1024 * 1024
// the request message around the requests: `{"_tag":"Request","id":"…","tag":"Resolve","payload":{"requests":[…]},"headers":[]}`
const envelopeBytes = 256
const encoder = new TextEncoder()
const byteLength = (json: string) => /^[\x20-\x7e]*$/.test(json) ? json.length : encoder.encode(json).length

const decodeProblem = Schema.decodeUnknownEffect(Problem)

/** A service answer other than 2xx as the `Problem` it carries, so callers see 401, 403, 404 ... as such. */
const problemAnswers = (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 400 ? Effect.succeed(response) : Effect.flatMap(
    Effect.result(Effect.flatMap(response.json, (body) => decodeProblem(body))),
    (problem) =>
      Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.StatusCodeError({
            request: response.request,
            response,
            ...(problem._tag === "Success" ? { cause: problem.success, description: problem.success.detail } : {})
          })
        })
      )
  )

/** The `Problem` inside a transport failure, when the service answered one. */
const withProblem = <E>(error: E): E | Problem => {
  const reason = (error as { readonly reason?: { readonly _tag?: string; readonly cause?: unknown } }).reason
  if (reason?._tag !== "HttpError") return error
  const cause = reason.cause as { readonly _tag?: string; readonly cause?: unknown } | undefined
  return cause?._tag === "StatusCodeError" && cause.cause instanceof Problem ? cause.cause : error
}

/** A branch error names its request in the call; the caller knows it by its place in the whole stream. */
const inStream = (offset: number) => <E>(error: E): E => {
  if (offset === 0 || !(error instanceof Workflows.Caller.InvalidReferenceInBody)) return error
  const path = error.path.replace(/^requests\[(\d+)\]/, (_, i: string) => `requests[${offset + Number(i)}]`)
  return new Workflows.Caller.InvalidReferenceInBody({ path, message: error.message }) as E
}

interface Batch {
  /** Where its first request is in the caller's stream. */
  readonly offset: number
  readonly requests: Array<Decision.DecisionRequest>
}

/** Cuts requests into calls under both limits, keeping where each call starts in the whole stream. */
class Batcher {
  private batch: Batch = { offset: 0, requests: [] }
  private bytes = 0
  private seen = 0
  constructor(private readonly budget: number) {}

  /** Adds one request; returns the batch it closed, if it did not fit. */
  add(request: Decision.DecisionRequest): Batch | undefined {
    const bytes = byteLength(JSON.stringify(request)) + 1
    const index = this.seen++
    if (this.batch.requests.length < maxRequestsPerCall && this.bytes + bytes <= this.budget) {
      this.batch.requests.push(request)
      this.bytes += bytes
      return undefined
    }
    const full = this.batch
    this.batch = { offset: index, requests: [request] }
    this.bytes = bytes
    return full.requests.length > 0 ? full : undefined
  }

  /** The last batch, if it holds any request. */
  end(): Batch | undefined {
    return this.batch.requests.length > 0 ? this.batch : undefined
  }
}

const present = <A>(value: A | undefined): Array<A> => value === undefined ? [] : [value]

/**
 * Calls in flight at once: while the host decides one call, the client reads the answer of the one
 * before, and neither waits for the other (2 doubled the throughput of bench/decisions.js; more did
 * not add to it). Answers still come out in request order.
 */
const callsInFlight = 2

/**
 * The client; its HTTP connections live as long as the scope. Provide `FetchHttpClient.layer`'s
 * `HttpClient` or another (a test double, Node's undici client).
 */
export const makeWith = (options: Options): Effect.Effect<DecisionClient, never, Scope.Scope | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = new URL(`api/v1/org/${encodeURIComponent(options.orgId)}/rpc`, String(options.baseUrl).replace(/\/?$/, "/")).href
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.prependUrl(url), HttpClientRequest.setHeader("x-api-key", options.apiKey))
      ),
      HttpClient.transformResponse(Effect.flatMap(problemAnswers))
    )
    const protocol = yield* Effect.provide(RpcClient.makeProtocolHttp(http), Ndjson.layerNdjson)
    const client = yield* Effect.provideService(RpcClient.make(DecisionRpcs), RpcClient.Protocol, protocol)
    const budget = (options.maxBodyBytes ?? defaultMaxBodyBytes) - envelopeBytes

    const resolve: DecisionClient["resolve"] = (requests) => {
      const batches = Stream.isStream(requests)
        ? requests.pipe(Stream.mapAccum(
          () => new Batcher(budget),
          (batcher, request): readonly [Batcher, ReadonlyArray<Batch>] => [batcher, present(batcher.add(request))],
          { onHalt: (batcher) => present(batcher.end()) }
        ))
        // an array or iterable is cut in one pass, without a stream step per request
        : Stream.fromIterable((function*() {
          const batcher = new Batcher(budget)
          for (const request of requests) {
            const full = batcher.add(request)
            if (full !== undefined) yield full
          }
          const last = batcher.end()
          if (last !== undefined) yield last
        })())
      return batches.pipe(
        Stream.mapEffect((batch) =>
          client.Resolve({ requests: batch.requests }).pipe(
            Stream.runCollect,
            Effect.mapError((error) => inStream(batch.offset)(withProblem(error)))
          ), { concurrency: callsInFlight }),
        // a call's decisions leave as one chunk (one per request: never empty, a batch never is)
        Stream.filter(Arr.isArrayNonEmpty),
        Stream.flattenArray
      )
    }

    const explain: DecisionClient["explain"] = (request) => Effect.mapError(client.Explain(request), withProblem)

    return { resolve, explain }
  })

/** The client over the platform's `fetch` (Node 18+, Deno, browsers). */
export const make = (options: Options): Effect.Effect<DecisionClient, never, Scope.Scope> =>
  Effect.provide(makeWith(options), FetchHttpClient.layer)
