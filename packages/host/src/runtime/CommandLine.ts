/**
 * What every Node entry of the `image-policy` command shares: cli.ts (every command, the whole
 * host loaded) and check/main.ts (`check` alone, which bin/image-policy.js starts without loading
 * the host's HTTP API, stores and workers). One root command, the global flags read before
 * effect/cli sees the arguments, effect/cli's settings, the failure a command reports and how the
 * process ends, so both entries behave the same. docs/cli.md is the user's page. Exit codes: 0
 * done, 1 the command failed, 2 the command line is wrong.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as CliConfig from "effect/cli/CliConfig"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Terminal from "./Terminal.js"

/** A failure the user can act on: printed on stderr as is, then the process exits with `exitCode`. */
export class CommandFailure extends Data.TaggedError("CommandFailure")<{
  readonly message: string
  readonly details?: ReadonlyArray<string> | undefined
  readonly exitCode: 1 | 2
}> {}

export const usage = (message: string) => new CommandFailure({ message, exitCode: 2 })

export const logLevels = { debug: "Debug", info: "Info", warning: "Warn", error: "Error" } as const satisfies Record<
  string,
  LogLevel.LogLevel
>

/**
 * Takes `--log-level LEVEL` (or `--log-level=LEVEL`) out of the arguments, wherever it stands,
 * before effect/cli parses the rest. effect/cli has a global `--log-level` of its own, with other
 * values (`all`, `trace`, `warn`, `fatal`, …) and its own error text; reading ours first keeps the
 * documented four values and the message `--log-level must be one of …`.
 */
export const takeLogLevel = (
  args: ReadonlyArray<string>
): Result.Result<{ readonly args: ReadonlyArray<string>; readonly level: LogLevel.LogLevel | undefined }, string> => {
  const rest: Array<string> = []
  let level: LogLevel.LogLevel | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      rest.push(...args.slice(i))
      break
    }
    let value: string | undefined
    if (arg === "--log-level") value = args[++i] ?? ""
    else if (arg.startsWith("--log-level=")) value = arg.slice("--log-level=".length)
    else {
      rest.push(arg)
      continue
    }
    if (!Object.hasOwn(logLevels, value)) return Result.fail(`--log-level must be one of ${Object.keys(logLevels).join(", ")}`)
    level = logLevels[value as keyof typeof logLevels]
  }
  return Result.succeed({ args: rest, level })
}

/**
 * effect/cli's settings for the image-policy commands (Node and Deno). Its global `--log-level`
 * is dropped: `takeLogLevel` has read ours (four documented values) before effect/cli sees the
 * arguments, so the built-in would only advertise values we refuse. A wrong command line prints
 * `image-policy: <what is wrong>` on stderr and nothing on stdout, as before (effect/cli's default
 * prints the whole help on stdout).
 */
export const cliLayer: Layer.Layer<never> = Layer.mergeAll(
  CliConfig.layer({ builtIns: GlobalFlag.BuiltIns.filter((flag) => flag !== GlobalFlag.LogLevel) }),
  // help goes to stdout: its colour follows stdout (Terminal.colourAllowed, no FORCE_COLOR)
  Layer.sync(CliOutput.Formatter, () =>
    CliOutput.defaultFormatter({
      colors: typeof process !== "undefined" && Terminal.colourAllowed(process.env, process.stdout.isTTY === true)
    })),
  CliOutput.layerPresenter({
    present: (event) =>
      event._tag === "InvalidInvocation"
        ? Console.error(event.errors.map((error) => `image-policy: ${error.message}`).join("\n"))
        : CliOutput.defaultPresenter.present(event)
  })
)

/** A wrong global flag: said on stderr, exit 2, before any command runs. */
const commandLineError = (message: string): never => {
  console.error(`image-policy: ${message}`)
  return process.exit(2)
}

/** The log format and colour of one stream (JsonLog.Format). */
export type LogSettings = Exclude<ReturnType<typeof Terminal.logSettings>, { readonly error: string }>

export interface Invocation {
  /** The arguments for effect/cli: without `--log-level` and `--log-format`. */
  readonly args: ReadonlyArray<string>
  readonly level: LogLevel.LogLevel | undefined
  /** The log format on stdout (`serve`'s logs) and on stderr (one-shot commands' logs). */
  readonly stdout: LogSettings
  readonly stderr: LogSettings
}

/**
 * Reads the global flags every command takes, `--log-format` then `--log-level`, and the log
 * format of each stream (the flag, else IMAGE_POLICY_LOG_FORMAT, else by whether it is a terminal).
 * A wrong one ends the process here with exit code 2, whatever the command.
 */
export const read = (argv: ReadonlyArray<string>): Invocation => {
  const withFormat = Terminal.takeLogFormat(argv)
  const { args, level } = Result.getOrElse(takeLogLevel(withFormat.args), commandLineError)
  const settingsFor = (stream: NodeJS.WriteStream): LogSettings => {
    const settings = Terminal.logSettings(withFormat.value, process.env, stream.isTTY === true)
    return "error" in settings ? commandLineError(settings.error) : settings
  }
  const stdout = settingsFor(process.stdout)
  return { args, level, stdout, stderr: settingsFor(process.stderr) }
}

/** `image-policy` itself: its description (the root help) and the commands under it. */
export const root = <const Subcommands extends ReadonlyArray<Command.Command.SubcommandEntry>>(subcommands: Subcommands) =>
  Command.make(
    "image-policy",
    {},
    () => usage("give a command: serve, migrate, seed, keys create, users create, secrets reseal or check (see image-policy --help)")
  ).pipe(
    Command.withDescription(
      "container-image policy service; every command takes --log-level debug|info|warning|error (the least severe log line written) and --log-format json|pretty (default: pretty on a terminal, else JSON lines)"
    ),
    Command.withSubcommands(subcommands)
  )

/** Waits until stdout and stderr have flushed (pipes may be asynchronous), then exits. */
const exit = (code: number) => {
  process.exitCode = code
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)))
}

/**
 * Runs a parsed command line (`Command.runWith(root(...))(args)`) on Node, then ends the process:
 * 0 when it succeeded; a `CommandFailure` printed as `image-policy: <message>` (and its details)
 * with its exit code; 2 for effect/cli's usage errors (presented by `cliLayer` already); 1 for
 * anything else.
 */
export const run = (program: Effect.Effect<void, unknown, Command.Environment>): void => {
  Effect.runPromiseExit(program.pipe(Effect.provide(Layer.merge(NodeServices.layer, cliLayer)))).then((result) => {
    if (Exit.isSuccess(result)) return exit(0)
    const failure = Cause.findErrorOption(result.cause)
    if (Option.isNone(failure)) {
      console.error(`image-policy: unexpected error\n${Cause.pretty(result.cause)}`)
      return exit(1)
    }
    const error: unknown = failure.value
    // effect/cli has presented its own usage errors already (cliLayer)
    if (CliError.isCliError(error)) return exit(2)
    if (error instanceof CommandFailure) {
      console.error(`image-policy: ${error.message}`)
      for (const line of error.details ?? []) console.error(line)
      return exit(error.exitCode)
    }
    console.error(`image-policy: ${error instanceof Error ? error.message : String(error)}`)
    return exit(1)
  })
}
