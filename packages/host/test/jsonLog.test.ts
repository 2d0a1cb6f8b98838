/**
 * The server's log (runtime/JsonLog.ts): one JSON object per line in the documented shape, written
 * in batches that keep the order of the lines, and nothing held back once the logger closes, a
 * warning arrives, the batch is full, its delay passed or the process exits.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { TestConsole } from "effect/testing"
import { describe, expect, it } from "vitest"
import * as JsonLog from "../src/runtime/JsonLog.js"
import { until } from "./support/until.js"

/** What the console was asked to write, split into lines (a batch is one write of several lines). */
const written = (writes: ReadonlyArray<unknown>) => writes.flatMap((w) => String(w).split("\n"))

/** Opens the server's logger over a test console; `log` runs an effect under it, `close` releases it. */
const open = async (buffer: JsonLog.BufferOptions, level: "Info" | "Warn" = "Info") => {
  const consoleContext = await Effect.runPromise(Layer.build(TestConsole.layer).pipe(Effect.scoped))
  const scope = Effect.runSync(Scope.make())
  const logging = await Effect.runPromise(
    Layer.buildWithScope(JsonLog.loggerLayer(level, buffer), scope).pipe(Effect.provideContext(consoleContext))
  )
  const run = <A>(effect: Effect.Effect<A>) =>
    Effect.runPromise(effect.pipe(Effect.provideContext(logging), Effect.provideContext(consoleContext)))
  return {
    log: (effect: Effect.Effect<void>) => run(effect),
    writes: () => run(TestConsole.logLines),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const held: JsonLog.BufferOptions = { flushAfterMs: 3_600_000, flushAtChars: 1_000_000 }

describe("the server's JSON log", () => {
  it("writes one JSON object per line with the documented fields", async () => {
    const logger = await open(held)
    await logger.log(Effect.logInfo("request").pipe(Effect.annotateLogs({ requestId: "r1", status: 200, durationMs: 1.25 })))
    await logger.log(Effect.logInfo("listening").pipe(Effect.annotateLogs({ url: "http://127.0.0.1:8080" })))
    await logger.close()
    const lines = written(await logger.writes())
    expect(lines).toHaveLength(2)
    const [request, listening] = lines.map((line) => JSON.parse(line))
    expect(Object.keys(request).sort()).toEqual(["annotations", "fiberId", "logLevel", "message", "spans", "timestamp"])
    expect(request).toMatchObject({ message: "request", logLevel: "INFO", annotations: { requestId: "r1", status: 200, durationMs: 1.25 } })
    expect(Number.isNaN(Date.parse(request.timestamp))).toBe(false)
    expect(listening).toMatchObject({ message: "listening", annotations: { url: "http://127.0.0.1:8080" } })
  })

  it("holds lines below Warn until the logger closes, then writes them in order in one write", async () => {
    const logger = await open(held)
    for (const id of ["a", "b", "c"]) await logger.log(Effect.logInfo("request").pipe(Effect.annotateLogs({ requestId: id })))
    expect(await logger.writes()).toEqual([])
    await logger.close()
    const writes = await logger.writes()
    expect(writes).toHaveLength(1)
    expect(written(writes).map((line) => JSON.parse(line).annotations.requestId)).toEqual(["a", "b", "c"])
  })

  it("writes a warning at once, after the lines held before it", async () => {
    const logger = await open(held)
    await logger.log(Effect.logInfo("request").pipe(Effect.annotateLogs({ requestId: "a" })))
    await logger.log(Effect.logWarning("could not record a rejected request in the audit trail"))
    expect(written(await logger.writes()).map((line) => JSON.parse(line).logLevel)).toEqual(["INFO", "WARN"])
    await logger.log(Effect.logError("unexpected failure"))
    expect(written(await logger.writes()).map((line) => JSON.parse(line).logLevel)).toEqual(["INFO", "WARN", "ERROR"])
    await logger.close()
  })

  it("writes a batch once it reaches its size", async () => {
    const logger = await open({ flushAfterMs: 3_600_000, flushAtChars: 1 })
    await logger.log(Effect.logInfo("request"))
    expect(written(await logger.writes())).toHaveLength(1)
    await logger.close()
  })

  it("writes held lines once their delay passed, without closing", async () => {
    const logger = await open({ flushAfterMs: 1, flushAtChars: 1_000_000 })
    await logger.log(Effect.logInfo("request"))
    const lines = await until("the held line", async () => {
      const lines = written(await logger.writes())
      return lines.length > 0 && lines
    })
    expect(JSON.parse(lines[0]!).message).toBe("request")
    await logger.close()
  })

  it("writes held lines when the process exits, and stops listening for the exit once closed", async () => {
    const before = new Set(process.listeners("exit"))
    const logger = await open(held)
    const onExit = process.listeners("exit").filter((listener) => !before.has(listener))
    expect(onExit).toHaveLength(1)
    await logger.log(Effect.logInfo("request")) // the process's own exit would end the test run: call the handler it would call
    ;(onExit[0] as (code: number) => void)(0)
    expect(written(await logger.writes())).toHaveLength(1)
    await logger.close()
    expect(process.listeners("exit").filter((listener) => !before.has(listener))).toEqual([])
    expect(written(await logger.writes())).toHaveLength(1)
  })

  it("drops lines below the chosen level", async () => {
    const logger = await open(held, "Warn")
    await logger.log(Effect.logInfo("request"))
    await logger.close()
    expect(await logger.writes()).toEqual([])
  })
})

describe("the server's readable log (a terminal's)", () => {
  const pretty = (colour: boolean) => JsonLog.loggerLayer("Info", held, { format: "pretty", colour })
  const lines = async (layer: Layer.Layer<never>, effect: Effect.Effect<void>) => {
    const consoleContext = await Effect.runPromise(Layer.build(TestConsole.layer).pipe(Effect.scoped))
    await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const logging = yield* Layer.build(layer)
        yield* Effect.provideContext(effect, logging)
      })).pipe(Effect.provideContext(consoleContext))
    )
    return written(await Effect.runPromise(TestConsole.logLines.pipe(Effect.provideContext(consoleContext))))
  }

  it("writes time, level, message and key=value annotations, quoting what has spaces", async () => {
    const [line] = await lines(
      pretty(false),
      Effect.logInfo("request").pipe(Effect.annotateLogs({ requestId: "r1", status: 200, route: "GET /a b", tags: ["x"] }))
    )
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}request requestId=r1 status=200 route="GET \/a b" tags=\["x"\]$/)
  })

  it("colours only when asked, and indents a cause below its line", async () => {
    const coloured = await lines(pretty(true), Effect.logWarning("slow"))
    expect(coloured[0]).toContain("\u001b[33mWARN")
    const failed = await lines(pretty(false), Effect.logError("unexpected failure", Cause.fail(new Error("boom"))))
    expect(failed[0]).toMatch(/ERROR unexpected failure/)
    expect(failed.slice(1).join("\n")).toMatch(/^ {4}.*boom/m)
    expect(failed.join("\n")).not.toContain("\u001b")
  })
})
