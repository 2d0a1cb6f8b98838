/**
 * The files `check` reads: the paths given, directories walked, kept when the scanner reads their
 * kind (`Scanner.fileKind`). `.git` and `node_modules` are skipped; a symbolic link is followed only
 * when its target lies inside the directory given (a link out of the tree could read anything on
 * the machine, and a link to an ancestor would loop), and what it reaches is read once. Paths are shown relative to the working
 * directory with `/`, as the report, SARIF and `--fix` name them.
 */
import { Scan, Scanner } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import { CheckFailure, describe } from "./CheckFailure.js"

export interface SourceFile {
  /** Relative to the working directory, `/`-separated: what the scanner and the reports see. */
  readonly path: string
  readonly absolute: string
}

/** A file as read: its text, and whether that text writes back as the same bytes (`--fix` needs it). */
export interface ReadFile extends SourceFile {
  readonly content: string
  /** Valid UTF-8 (decoded with its byte-order mark kept): rewriting it changes only what is rewritten. */
  readonly utf8: boolean
}

const skippedDirectories = new Set([".git", "node_modules"])

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const lenient = new TextDecoder("utf-8", { ignoreBOM: true })

/** The text of a file's bytes: UTF-8 with its byte-order mark kept (the scanner counts it as a column). */
export const decode = (bytes: Uint8Array): { readonly content: string; readonly utf8: boolean } => {
  try {
    return { content: strict.decode(bytes), utf8: true }
  } catch {
    return { content: lenient.decode(bytes), utf8: false }
  }
}

/** The scannable files under `paths` (relative to `cwd`), each once, sorted by path. */
export const collect = (
  paths: ReadonlyArray<string>,
  cwd: string
): Effect.Effect<ReadonlyArray<SourceFile>, CheckFailure, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const found = new Map<string, SourceFile>()
    const shown = (absolute: string) => path.relative(cwd, absolute).split(path.sep).join("/")
    // by real path: a file reached through a link as well is read once
    const keep = (absolute: string, real: string) => {
      const file = { path: shown(absolute), absolute }
      if (!found.has(real) && Scanner.fileKind(file.path) !== undefined) found.set(real, file)
    }
    const unreadable = (given: string) => (e: PlatformError.PlatformError) =>
      new CheckFailure({ reason: "unreadable", message: `cannot read ${given}: ${describe(e)}` })

    /** Walks `dir`, whose real path is `realDir`, inside the tree whose real path is `root`. */
    const walk = (dir: string, realDir: string, root: string, visited: Set<string>): Effect.Effect<void, CheckFailure> =>
      Effect.gen(function*() {
        const entries = yield* fs.readDirectoryEntries(dir).pipe(Effect.mapError(unreadable(shown(dir) || ".")))
        for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
          const full = path.join(dir, entry.name)
          let type = entry.type
          let real = path.join(realDir, entry.name)
          if (type === "SymbolicLink" || type === "Unknown") {
            // a dangling link is no file to read: left out, as git leaves it
            const target = yield* Effect.option(fs.realPath(full))
            if (target._tag === "None") continue
            real = target.value
            if (real !== root && !real.startsWith(root + path.sep)) continue
            const info = yield* Effect.option(fs.stat(real))
            if (info._tag === "None") continue
            type = info.value.type
          }
          if (type === "Directory") {
            // a directory reached again (through a link, or a link to an ancestor) is walked once
            if (skippedDirectories.has(entry.name) || visited.has(real)) continue
            visited.add(real)
            yield* walk(full, real, root, visited)
          } else if (type === "File") {
            keep(full, real)
          }
        }
      })

    for (const given of paths) {
      const absolute = path.resolve(cwd, given)
      const info = yield* fs.stat(absolute).pipe(Effect.mapError(unreadable(given)))
      const real = yield* fs.realPath(absolute).pipe(Effect.mapError(unreadable(given)))
      if (info.type === "Directory") yield* walk(absolute, real, real, new Set([real]))
      else keep(absolute, real)
    }
    return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  })

/** Reads one file; `undefined` when it is over the scan's size limit (`Scan.isFileTooLarge`), as a branch scan skips it. */
export const read = (
  file: SourceFile
): Effect.Effect<ReadFile | undefined, CheckFailure, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const bytes = yield* fs.readFile(file.absolute).pipe(
      Effect.mapError((e) => new CheckFailure({ reason: "unreadable", message: `cannot read ${file.path}: ${describe(e)}` }))
    )
    const text = decode(bytes)
    return Scan.isFileTooLarge(text.content) ? undefined : { ...file, ...text }
  })
