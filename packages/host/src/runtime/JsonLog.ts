/**
 * The host's log lines: one JSON object per line in the shape docs/cli.md documents (and Effect 3
 * wrote): `message`, `logLevel`, `timestamp`, `cause` (when there is one), `annotations`, `spans`,
 * `fiberId`. Effect 4's own JSON logger names the level `level`; log pipelines read `logLevel`.
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

/**
 * JSON lines on stdout at the chosen level, written in batches (`bufferedConsoleLog`): the
 * server's log (requests, workers, start and stop).
 */
export const loggerLayer = (level: LogLevel.LogLevel = "Info", buffer: BufferOptions = bufferDefaults): Layer.Layer<never> =>
  Layer.merge(Logger.layer([bufferedConsoleLog(jsonLogger, buffer)]), Layer.succeed(References.MinimumLogLevel, level))

/** JSON lines on stderr, for the one-shot commands whose stdout is their answer. */
export const stderrLoggerLayer = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(Logger.layer([Logger.withConsoleError(jsonLogger)]), Layer.succeed(References.MinimumLogLevel, level))
