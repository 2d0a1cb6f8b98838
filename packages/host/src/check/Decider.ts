/**
 * Where `check` gets its decisions: the seam between finding references and judging them. The
 * offline decider reads a mappings file and decides with the embedded core; a decider that asks a
 * server's decision API returns the same `Decision` values, so everything after this seam (the
 * report, the exit code, `--fix`) is one code path for both.
 */
import type { DecisionClient } from "@image-policy/client"
import type { Problem } from "@image-policy/client/api/Problem"
import { Decision, MappingsFile, ResolutionIndex } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { CheckFailure, describe } from "./CheckFailure.js"

/** What is asked of a decider: a finding's image as its file states it, and its platform (`Decision.requestOf`). */
export type DecisionAsk = NonNullable<ReturnType<typeof Decision.requestOf>>

export interface Decider {
  /** The decision on each ask, in the order asked. */
  readonly decide: (asks: ReadonlyArray<DecisionAsk>) => Effect.Effect<ReadonlyArray<Decision.Decision>, CheckFailure>
}

/** No snooze request can be read without a server: offline, nothing is snoozed. */
const noSnoozes: Decision.ActiveSnoozes = new Map()

/**
 * Decides against a `service-mappings.json` file (the format of external phases), read and
 * validated whole at once: the file is one policy group of one phase (`MappingsFile.filePolicy`),
 * indexed once; every ask is decided at the time the decider was made.
 */
export const offline = (mappingsPath: string): Effect.Effect<Decider, CheckFailure, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(mappingsPath).pipe(
      Effect.mapError((e) =>
        new CheckFailure({ reason: "unreadable", message: `cannot read the mappings file ${mappingsPath}: ${describe(e)}` })
      )
    )
    const decoded = MappingsFile.decodeMappingsFile(text)
    if (Result.isFailure(decoded)) {
      const { errors } = decoded.failure
      return yield* new CheckFailure({
        reason: "invalid-mappings",
        message: `invalid mappings file ${mappingsPath} (${errors.length === 1 ? "1 problem" : `${errors.length} problems`}):`,
        details: errors.map((e) => `  ${e.path}: ${e.message}`)
      })
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const index = ResolutionIndex.build(MappingsFile.filePolicy(decoded.success, now))
    return {
      decide: (asks) => Effect.sync(() => asks.map((ask) => Decision.decide(index, noSnoozes, ask, now)))
    }
  })

export interface ServerOptions {
  readonly baseUrl: string
  readonly orgId: string
  /** An API key holding `policy:read`; it goes in the `x-api-key` header and nowhere else. */
  readonly apiKey: string
  /** The repository whose assignments and snoozes apply; without it, the groups that apply to every repository. */
  readonly repositoryId?: string | undefined
  /** A tracked branch of that repository (default: its default branch). */
  readonly branch?: string | undefined
}

/** Why the server could not answer, in a reader's words: its problem's status and detail, or the transport's failure. */
const serverFailure = (baseUrl: string, problem: typeof Problem, error: DecisionClient.DecisionClientError): CheckFailure => {
  const prefix = `the decision API of ${baseUrl}`
  if (error instanceof problem) {
    return new CheckFailure({ reason: "server", message: `${prefix} answered ${error.status}: ${error.detail}` })
  }
  switch (error._tag) {
    case "RepositoryNotFound":
      return new CheckFailure({ reason: "server", message: `${prefix}: no repository ${error.repositoryId} in this organization` })
    case "InvalidReferenceInBody":
      return new CheckFailure({
        reason: "server",
        message: `${prefix}: ${error.path.replace(/^requests\[\d+\]\./, "--")} ${error.message}`
      })
    default:
      return new CheckFailure({ reason: "server", message: `cannot reach ${prefix}: ${error.message}` })
  }
}

/** Whether the decision API takes an ask as it is: its image and platform within the request's limits. */
const fitsRequest = Schema.is(Decision.DecisionRequest)

/** No mapping: what an ask is decided against when its decision cannot depend on the policy. */
const noPolicy = ResolutionIndex.build([])

/**
 * Decides through a server's decision API (`POST /api/v1/org/{orgId}/rpc`, `Resolve`): the
 * organization's published policy for the repository and branch, its snoozes, and the same
 * `Decision` values the offline decider gives. Every ask goes in one stream (the client cuts it
 * into calls), so a tree of thousands of files costs a handful of requests. The client (the whole
 * API's definition) is loaded here, on the first decision: an offline check never loads it.
 *
 * An ask the API does not take (an image longer than 1,024 characters, a platform longer than 100)
 * is no reference or platform the core can parse in practice: it is decided here, `invalid` as
 * offline, whatever the policy. One the core could parse (a registry name of hundreds of
 * characters) cannot be decided without the server: that is a failure, never a guess.
 */
export const server = (options: ServerOptions): Decider => ({
  decide: (asks) =>
    Effect.gen(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      const local = asks.map((ask) => fitsRequest(ask) ? undefined : Decision.decide(noPolicy, noSnoozes, ask, now))
      const undecidable = local.findIndex((decision) => decision !== undefined && decision.invalid === undefined)
      if (undecidable >= 0) {
        return yield* new CheckFailure({
          reason: "server",
          message: `the decision API of ${options.baseUrl} takes images of at most 1024 characters and platforms of at most 100: ${
            asks[undecidable]!.image.slice(0, 60)
          }… is longer`
        })
      }
      const where = {
        ...(options.repositoryId === undefined
          ? {}
          : { repositoryId: options.repositoryId as Decision.DecisionRequest["repositoryId"] & string }),
        ...(options.branch === undefined ? {} : { branch: options.branch })
      }
      const asked = asks.flatMap((ask, i) => local[i] === undefined ? [{ ...ask, ...where }] : [])
      const [{ DecisionClient }, { Problem }] = yield* Effect.promise(() =>
        Promise.all([import("@image-policy/client"), import("@image-policy/client/api/Problem")])
      )
      const decisions = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* DecisionClient.make({ baseUrl: options.baseUrl, orgId: options.orgId, apiKey: options.apiKey })
        return Array.from(yield* Stream.runCollect(client.resolve(asked)))
      })).pipe(Effect.mapError((error) => serverFailure(options.baseUrl, Problem, error)))
      let next = 0
      return local.map((decision) => decision ?? decisions[next++]!)
    })
})
