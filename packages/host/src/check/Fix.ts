/**
 * `check --fix`: the edits a remediation request would make (`Remediation.changesOf` over the same
 * decisions, applied by `Remediation.rewrite`), written in place. Every other byte stays: line
 * endings, byte-order mark, quotes, comments. A file that is not valid UTF-8 is left alone (its
 * bytes would not survive the round trip). The unified diff of each file is printed.
 */
import { Remediation } from "@image-policy/core"
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { CheckFailure, describe } from "./CheckFailure.js"
import type { ReadFile } from "./SourceFiles.js"

export interface FileFix {
  readonly file: ReadFile
  readonly content: string
  readonly applied: ReadonlyArray<Remediation.RemediationChange>
}

export interface FixPlan {
  readonly fixes: ReadonlyArray<FileFix>
  /** Files with changes that cannot be written back byte for byte (not UTF-8). */
  readonly notUtf8: ReadonlyArray<string>
}

/** The new content of each file that changes. */
export const plan = (files: ReadonlyArray<ReadFile>, findings: ReadonlyArray<Remediation.DecidedFinding>): FixPlan => {
  const byFile = new Map<string, Array<Remediation.RemediationChange>>()
  for (const change of Remediation.changesOf(findings)) {
    const list = byFile.get(change.file) ?? []
    byFile.set(change.file, [...list, change])
  }
  const fixes: Array<FileFix> = []
  const notUtf8: Array<string> = []
  for (const file of files) {
    const changes = byFile.get(file.path)
    if (changes === undefined) continue
    if (!file.utf8) {
      notUtf8.push(file.path)
      continue
    }
    const { applied, content } = Remediation.rewrite(file.content, changes)
    if (applied.length > 0) fixes.push({ file, content, applied })
  }
  return { fixes, notUtf8 }
}

/** The unified diff of one fix (`a/` and `b/` prefixes, as git shows it: `git apply` and `patch -p1` take it). */
export const diffOf = (fix: FileFix): string =>
  createTwoFilesPatch(`a/${fix.file.path}`, `b/${fix.file.path}`, fix.file.content, fix.content, undefined, undefined, {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY
  })

const encoder = new TextEncoder()

/** Writes every fix in place. */
export const write = (fixes: ReadonlyArray<FileFix>): Effect.Effect<void, CheckFailure, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    for (const fix of fixes) {
      yield* fs.writeFile(fix.file.absolute, encoder.encode(fix.content)).pipe(
        Effect.mapError((e) => new CheckFailure({ reason: "unwritable", message: `cannot write ${fix.file.path}: ${describe(e)}` }))
      )
    }
  })
