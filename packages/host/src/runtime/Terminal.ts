/**
 * What the host writes for a person at a terminal and what it writes for a machine: colour in the
 * CLI's help and errors, and the log format of `serve`. One decision for both, so they never
 * disagree (docs/cli.md, docs/deploy.md).
 */

export type Env = Readonly<Record<string, string | undefined>>

/**
 * Colour only on a terminal, and never with `NO_COLOR` set to a non-empty value
 * (https://no-color.org) or `TERM=dumb`. effect/cli's own detection also honours `FORCE_COLOR` off
 * a terminal; here piped output never has colour, so a log collector or a file never holds escape
 * codes whatever the environment says.
 */
export const colourAllowed = (env: Env, isTerminal: boolean): boolean =>
  isTerminal && (env.NO_COLOR === undefined || env.NO_COLOR === "") && env.TERM !== "dumb"

export const logFormatVar = "IMAGE_POLICY_LOG_FORMAT"

export const logFormats = ["json", "pretty"] as const
export type LogFormat = (typeof logFormats)[number]

export const isLogFormat = (text: string): text is LogFormat => (logFormats as ReadonlyArray<string>).includes(text)

/**
 * The log format of `serve`: `--log-format` when given, else `IMAGE_POLICY_LOG_FORMAT`, else
 * readable lines on a terminal and JSON lines anywhere else (a pipe, a file, a container's log
 * driver). Answers an error text for a value that is neither `json` nor `pretty`.
 */
export const logFormat = (
  flag: string | undefined,
  env: Env,
  isTerminal: boolean
): { readonly format: LogFormat } | { readonly error: string } => {
  const fromEnv = env[logFormatVar]
  const chosen = flag ?? (fromEnv === undefined || fromEnv.trim() === "" ? undefined : fromEnv.trim())
  if (chosen === undefined) return { format: isTerminal ? "pretty" : "json" }
  if (isLogFormat(chosen)) return { format: chosen }
  return { error: `${flag === undefined ? logFormatVar : "--log-format"} must be one of ${logFormats.join(", ")}` }
}

/**
 * Takes `--log-format FORMAT` (or `--log-format=FORMAT`) out of the arguments wherever it stands,
 * as `takeLogLevel` (ServeOptions.ts) does for `--log-level`: every command accepts it, and
 * effect/cli never sees it. The value is checked by `logFormat`.
 */
export const takeLogFormat = (
  args: ReadonlyArray<string>
): { readonly args: ReadonlyArray<string>; readonly value: string | undefined } => {
  const rest: Array<string> = []
  let value: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      rest.push(...args.slice(i))
      break
    }
    if (arg === "--log-format") value = args[++i] ?? ""
    else if (arg.startsWith("--log-format=")) value = arg.slice("--log-format=".length)
    else rest.push(arg)
  }
  return { args: rest, value }
}

/** The log format and colour for a stream, or the error text of a bad `--log-format` or variable. */
export const logSettings = (
  flag: string | undefined,
  env: Env,
  isTerminal: boolean
): { readonly format: LogFormat; readonly colour: boolean } | { readonly error: string } => {
  const chosen = logFormat(flag, env, isTerminal)
  return "error" in chosen ? chosen : { format: chosen.format, colour: colourAllowed(env, isTerminal) }
}
