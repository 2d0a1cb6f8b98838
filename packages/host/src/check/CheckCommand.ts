/**
 * `image-policy check [PATH...]` (issue 18; docs/cli.md#check): scan files for container image
 * references and judge each against a policy, here a mappings file (`--mappings`, offline). It
 * parses flags, runs the check (Check.ts) through a decider (Decider.ts), prints the report and
 * sets the exit code: 0 nothing out of policy (or `--fail-on none`), 1 something is, 2 the check
 * could not run (command line, unreadable path, invalid mappings file).
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { CommandFailure } from "../runtime/CommandLine.js"
import * as Check from "./Check.js"
import { CheckFailure, describe } from "./CheckFailure.js"
import * as Decider from "./Decider.js"
import * as Fix from "./Fix.js"
import * as Progress from "./Progress.js"
import * as Report from "./Report.js"
import * as Sarif from "./Sarif.js"
import * as Table from "./Table.js"

export const formats = ["table", "json", "sarif"] as const
export type Format = (typeof formats)[number]

const render = (format: Format, result: Check.CheckResult): string =>
  format === "json"
    ? Report.json(result.files.length, result.findings)
    : format === "sarif"
    ? Sarif.sarif(result.findings)
    : Table.table(result.files.length, result.findings)

const placeOf = (f: { readonly file: string; readonly line: number; readonly column: number }) => `${f.file}:${f.line}:${f.column}`

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Writes text as it is: a report's bytes, not a log line. */
const print = (text: string) => text === "" ? Effect.void : Console.log(text.endsWith("\n") ? text.slice(0, -1) : text)

const usage = (message: string) => new CheckFailure({ reason: "usage", message: `check: ${message} (see image-policy check --help)` })

/** The policy to check against: a mappings file, or a server (its key from the environment, never a flag a shell history keeps). */
const deciderOf = (flags: {
  readonly mappings: Option.Option<string>
  readonly server: Option.Option<string>
  readonly org: Option.Option<string>
  readonly repository: Option.Option<string>
  readonly branch: Option.Option<string>
}) => {
  if (Option.isSome(flags.mappings) && Option.isSome(flags.server)) {
    return Effect.fail(usage("give --mappings FILE or --server URL, not both"))
  }
  if (Option.isSome(flags.mappings)) return Decider.offline(flags.mappings.value)
  if (Option.isNone(flags.server)) {
    return Effect.fail(usage("give --mappings FILE (a service-mappings.json) or --server URL with --org ID to check against"))
  }
  if (Option.isNone(flags.org)) return Effect.fail(usage("--server needs --org ID, the organization whose policy applies"))
  if (Option.isSome(flags.branch) && Option.isNone(flags.repository)) return Effect.fail(usage("--branch needs --repository ID"))
  const apiKey = process.env.IMAGE_POLICY_API_KEY ?? ""
  if (apiKey === "") return Effect.fail(usage("--server needs an API key holding policy:read in IMAGE_POLICY_API_KEY"))
  return Effect.succeed(Decider.server({
    baseUrl: flags.server.value,
    orgId: flags.org.value,
    apiKey,
    repositoryId: Option.getOrUndefined(flags.repository),
    branch: Option.getOrUndefined(flags.branch)
  }))
}

/**
 * The one definition of `check`: cli.ts lists it among every command, and check/main.ts (the entry
 * bin/image-policy.js starts for `check`, without the host's HTTP API, stores and workers) runs it
 * under the same root (CommandLine.root), so its flags, help, messages and exit codes are the same.
 */
export const command = Command.make(
  "check",
  {
    paths: Argument.String("PATH").pipe(
      Argument.withDescription("files or directories to check (default: the working directory)"),
      Argument.variadic()
    ),
    mappings: Flag.String("mappings").pipe(
      Flag.withMetavar("FILE"),
      Flag.withDescription("the policy to check against: a service-mappings.json file (the format of external phases)"),
      Flag.optional
    ),
    server: Flag.String("server").pipe(
      Flag.withMetavar("URL"),
      Flag.withDescription(
        "check against a service's published policy over its decision API (with --org; the key in IMAGE_POLICY_API_KEY)"
      ),
      Flag.optional
    ),
    org: Flag.String("org").pipe(Flag.withMetavar("ID"), Flag.withDescription("with --server: the organization"), Flag.optional),
    repository: Flag.String("repository").pipe(
      Flag.withMetavar("ID"),
      Flag.withDescription("with --server: the repository whose assignments and snoozes apply (default: groups for every repository)"),
      Flag.optional
    ),
    branch: Flag.String("branch").pipe(
      Flag.withMetavar("NAME"),
      Flag.withDescription("with --repository: a tracked branch (default: the repository's default branch)"),
      Flag.optional
    ),
    format: Flag.Literals("format", formats).pipe(
      Flag.withDescription("table (default), json or sarif (SARIF 2.1.0, for code scanning)"),
      Flag.withDefault("table" as const)
    ),
    output: Flag.String("output").pipe(
      Flag.withMetavar("FILE"),
      Flag.withDescription("write the report to FILE instead of stdout"),
      Flag.optional
    ),
    failOn: Flag.Literals("fail-on", ["none", "out-of-policy"] as const).pipe(
      Flag.withDescription("out-of-policy (default): exit 1 when a finding is out of policy; none: exit 0 whatever is found"),
      Flag.withDefault("out-of-policy" as const)
    ),
    fix: Flag.Boolean("fix").pipe(
      Flag.withDescription("rewrite out-of-policy references in place (the edits a remediation request makes) and print the diff"),
      Flag.withDefault(false)
    )
  },
  (flags) =>
    Effect.gen(function*() {
      const decider = yield* deciderOf(flags)
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const cwd = process.cwd()
      const result = yield* Check.run({
        paths: flags.paths.length === 0 ? ["."] : flags.paths,
        cwd,
        decider,
        progress: (total) => Progress.make(total, process.stderr, () => performance.now())
      })
      const report = render(flags.format, result)
      const outOfPolicy = result.findings.filter((f) => Report.statusOf(f) === "out-of-policy").map((f) => f.finding)

      let left = outOfPolicy
      if (flags.fix) {
        const planned = Fix.plan(result.files, result.findings)
        yield* Fix.write(planned.fixes)
        // stdout carries the diff alone, so it can be piped to `git apply -R` or kept as a patch
        yield* print(planned.fixes.map(Fix.diffOf).join(""))
        const fixed = new Set(planned.fixes.flatMap((f) => f.applied.map(placeOf)))
        left = outOfPolicy.filter((f) => !fixed.has(placeOf(f)))
        for (const file of planned.notUtf8) yield* Console.error(`image-policy: ${file} is not valid UTF-8: left unchanged`)
        yield* Console.error(
          fixed.size === 0
            ? "image-policy: nothing to fix"
            : `image-policy: fixed ${plural(fixed.size, "reference")} in ${plural(planned.fixes.length, "file")}`
        )
      }
      if (Option.isSome(flags.output)) {
        const output = flags.output.value
        yield* fs.writeFileString(path.resolve(cwd, output), report).pipe(
          Effect.mapError((e) => new CheckFailure({ reason: "unwritable", message: `cannot write ${output}: ${describe(e)}` }))
        )
      } else if (!flags.fix) {
        yield* print(report)
      }
      return left.length
    }).pipe(
      Effect.mapError((e) => new CommandFailure({ message: e.message, exitCode: 2, details: e.details })),
      Effect.flatMap((left) =>
        flags.failOn === "out-of-policy" && left > 0
          ? Effect.fail(
            new CommandFailure({ message: `${plural(left, "finding")} out of policy${flags.fix ? " left after --fix" : ""}`, exitCode: 1 })
          )
          : Effect.void
      )
    )
).pipe(
  Command.withDescription(
    "scan files for container image references and check each against a mappings file or a server's policy; exit 1 when one is out of policy"
  )
)
