/**
 * The host's log lines: one JSON object per line in the shape docs/cli.md documents (and Effect 3
 * wrote): `message`, `logLevel`, `timestamp`, `cause` (when there is one), `annotations`, `spans`,
 * `fiberId`. Effect 4's own JSON logger names the level `level`; log pipelines read `logLevel`.
 * On a terminal the same fields read as one line each (`prettyLogger`, Terminal.logFormat).
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"

export const jsonLogger: Logger.Logger<unknown, string> = Logger.map(
  Logger.formatStructured,
  ({ annotations, cause, fiberId, level, message, spans, timestamp }) => {
    const line = { message, logLevel: level, timestamp, cause, annotations, spans, fiberId }
    // Effect's formatter redacts and breaks cycles with a replacer called for every key, which made
    // the access log a third of a request's cost; a line of plain text and numbers (the access log,
    // most worker lines) has nothing to redact or break
    return typeof message === "string" && Object.values(annotations).every(isPlain)
      ? JSON.stringify(line)
      : Formatter.formatJson(line)
  }
)

const levelColours: Record<string, string> = {
  FATAL: "\x1b[1;31m",
  ERROR: "\x1b[31m",
  WARN: "\x1b[33m",
  INFO: "\x1b[32m",
  DEBUG: "\x1b[34m",
  TRACE: "\x1b[90m"
}

// a value that reads unambiguously after `key=`: bare when it has no space, quote or `=`
const show = (value: unknown): string => {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  if (value === undefined) return "undefined"
  return typeof value === "object" && value !== null ? Formatter.formatJson(value) : String(value)
}

/**
 * Readable lines for a person at a terminal (Terminal.logFormat): time, level, message, then the
 * annotations as `key=value`, and a cause indented below. The same fields as `jsonLogger`, so
 * switching format hides nothing and reveals nothing; `colour` only styles the time and level.
 */
export const prettyLogger = (colour: boolean): Logger.Logger<unknown, string> =>
  Logger.map(Logger.formatStructured, ({ annotations, cause, level, message, spans, timestamp }) => {
    const time = colour ? `\x1b[2m${timestamp}\x1b[0m` : timestamp
    const tag = colour ? `${levelColours[level] ?? ""}${level.padEnd(5)}\x1b[0m` : level.padEnd(5)
    const text = (Array.isArray(message) ? message : [message])
      .map((part) => typeof part === "string" ? part : Formatter.formatJson(part))
      .join(" ")
    const pairs = Object.entries(annotations).map(([key, value]) => `${key}=${show(value)}`)
    const timings = Object.entries(spans).map(([label, ms]) => `${label}=${ms}ms`)
    const line = [time, tag, text, ...pairs, ...timings].join(" ")
    return cause === undefined ? line : `${line}\n${cause.replace(/^/gm, "    ")}`
  })

const isPlain = (value: unknown): boolean =>
  value === null || value === undefined || typeof value === "string" || typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value))

export interface BufferOptions {
  /** A line waits at most this long before it is written. */
  readonly flushAfterMs: number
  /** A batch is written at once when it reaches this many characters. */
  readonly flushAtChars: number
}

export const bufferDefaults: BufferOptions = { flushAfterMs: 50, flushAtChars: 64 * 1024 }

/**
 * The lines of `format` written with the console's `log` in batches: one write per batch instead
 * of one per line (with the access log on, the write of its line cost more than the rest of a
 * small request). A batch is written after `flushAfterMs`, at `flushAtChars`, at once for a
 * warning or an error (after the lines before it, so the order holds), when the scope closes and
 * when the process exits, so no line is lost at shutdown. Effect's `Logger.batched` is not used:
 * it wakes on its window even when idle, has no size bound, and cannot be flushed from an exit
 * handler.
 */
export const bufferedConsoleLog = <Message>(
  format: Logger.Logger<Message, string>,
  options: BufferOptions = bufferDefaults
): Effect.Effect<Logger.Logger<Message, void>, never, Scope.Scope> =>
  Console.consoleWith((console) => {
    let lines: Array<string> = []
    let chars = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      if (lines.length === 0) return
      const text = lines.join("\n")
      lines = []
      chars = 0
      console.log(text)
    }
    const logger = Logger.make<Message, void>((entry) => {
      const line = format.log(entry)
      lines.push(line)
      chars += line.length
      if (chars >= options.flushAtChars || LogLevel.isGreaterThanOrEqualTo(entry.logLevel, "Warn")) flush()
      else if (timer === undefined) timer = setTimeout(flush, options.flushAfterMs)
    })
    // Deno has no `process` unless asked for: its runtime closes the scope on stop
    const exiting = typeof process === "undefined" ? undefined : process
    return Effect.acquireRelease(
      Effect.sync(() => {
        exiting?.on("exit", flush)
        return logger
      }),
      () =>
        Effect.sync(() => {
          exiting?.off("exit", flush)
          flush()
        })
    )
  })

export interface Format {
  /** `json` (one object a line) or `pretty` (Terminal.logFormat decides, docs/deploy.md). */
  readonly format: "json" | "pretty"
  /** Colour in `pretty` lines (Terminal.colourAllowed). */
  readonly colour: boolean
}

export const jsonFormat: Format = { format: "json", colour: false }

const formatter = (format: Format) => format.format === "pretty" ? prettyLogger(format.colour) : jsonLogger

/**
 * The server's log on stdout at the chosen level, written in batches (`bufferedConsoleLog`):
 * requests, workers, start and stop. JSON lines unless `format` asks for readable ones.
 */
export const loggerLayer = (
  level: LogLevel.LogLevel = "Info",
  buffer: BufferOptions = bufferDefaults,
  format: Format = jsonFormat
): Layer.Layer<never> =>
  Layer.merge(Logger.layer([bufferedConsoleLog(formatter(format), buffer)]), Layer.succeed(References.MinimumLogLevel, level))

/** Log lines on stderr, for the one-shot commands whose stdout is their answer. */
export const stderrLoggerLayer = (level: LogLevel.LogLevel, format: Format = jsonFormat): Layer.Layer<never> =>
  Layer.merge(Logger.layer([Logger.withConsoleError(formatter(format))]), Layer.succeed(References.MinimumLogLevel, level))
