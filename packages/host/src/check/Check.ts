/**
 * `image-policy check`, the work itself: collect the files, scan each (`Scanner.scanFile`, as a
 * branch scan does), ask the decider once about every distinct image and platform, and pair each
 * finding with its decision. A finding whose image the scanner could not know (built from ARGs,
 * variables or templates) is asked nothing: it is reported as unresolved, never out of policy.
 */
import { Decision, Remediation, Scanner } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type { CheckFailure } from "./CheckFailure.js"
import type { Decider, DecisionAsk } from "./Decider.js"
import type * as Progress from "./Progress.js"
import * as SourceFiles from "./SourceFiles.js"

export interface CheckInput {
  readonly paths: ReadonlyArray<string>
  readonly cwd: string
  readonly decider: Decider
  /** Made once the number of files is known. */
  readonly progress: (total: number) => Progress.Progress
}

export interface CheckResult {
  /** The files read (over-size ones are left out, as a branch scan leaves them), by path. */
  readonly files: ReadonlyArray<SourceFiles.ReadFile>
  /** Every finding with its decision, by file, line and column. */
  readonly findings: ReadonlyArray<Remediation.DecidedFinding>
}

/** Files read at once: enough to keep the disk busy, few enough to hold little. */
const readConcurrency = 16

const askKey = (ask: DecisionAsk) => `${ask.platform ?? ""}\u0000${ask.image}`

export const run: (
  input: CheckInput
) => Effect.Effect<CheckResult, CheckFailure, FileSystem.FileSystem | Path.Path> = Effect.fn("Check.run")(function*(
  input: CheckInput
) {
  const sources = yield* SourceFiles.collect(input.paths, input.cwd)
  const progress = input.progress(sources.length)
  const read = yield* Effect.forEach(sources, (source) =>
    Effect.map(SourceFiles.read(source), (file) => {
      const findings = file === undefined ? [] : Scanner.scanFile(file.path, file.content)
      progress.advance()
      return { file, findings }
    }), { concurrency: readConcurrency }).pipe(Effect.ensuring(Effect.sync(progress.end)))

  const findings = read.flatMap((r) => r.findings)
  // many findings name the same image: each distinct ask is decided once
  const asks = new Map<string, DecisionAsk>()
  for (const finding of findings) {
    const ask = Decision.requestOf(finding)
    if (ask !== undefined) asks.set(askKey(ask), ask)
  }
  const unique = [...asks.values()]
  const decisions = yield* input.decider.decide(unique)
  const byAsk = new Map(unique.map((ask, i) => [askKey(ask), decisions[i]]))
  return {
    files: read.flatMap((r) => (r.file === undefined ? [] : [r.file])),
    findings: findings.map((finding) => {
      const ask = Decision.requestOf(finding)
      return { finding, decision: ask === undefined ? undefined : byAsk.get(askKey(ask)) }
    })
  }
})
