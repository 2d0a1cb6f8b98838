/**
 * The host's log lines: one JSON object per line in the shape docs/cli.md documents (and Effect 3
 * wrote): `message`, `logLevel`, `timestamp`, `cause` (when there is one), `annotations`, `spans`,
 * `fiberId`. Effect 4's own JSON logger names the level `level`; log pipelines read `logLevel`.
 */
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"

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

/** JSON lines on stdout at the chosen level: the server's log (requests, workers, start and stop). */
export const loggerLayer = (level: LogLevel.LogLevel = "Info"): Layer.Layer<never> =>
  Layer.merge(Logger.layer([Logger.withConsoleLog(jsonLogger)]), Layer.succeed(References.MinimumLogLevel, level))

/** JSON lines on stderr, for the one-shot commands whose stdout is their answer. */
export const stderrLoggerLayer = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(Logger.layer([Logger.withConsoleError(jsonLogger)]), Layer.succeed(References.MinimumLogLevel, level))
