/**
 * Where `check` gets its decisions: the seam between finding references and judging them. The
 * offline decider reads a mappings file and decides with the embedded core; a decider that asks a
 * server's decision API returns the same `Decision` values, so everything after this seam (the
 * report, the exit code, `--fix`) is one code path for both.
 */
import { Decision, MappingsFile, ResolutionIndex } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Result from "effect/Result"
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
