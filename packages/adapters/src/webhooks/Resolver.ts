/**
 * Host name resolution for the webhook sender. The sender resolves a destination's host exactly
 * once per attempt, checks every answer, and connects to one of those answers (DNS pinning, spec 6
 * "Delivery"); the resolver is a parameter so tests can play DNS-rebinding games with it.
 *
 * The system resolver uses `node:dns` `lookup` (getaddrinfo: honours /etc/hosts, so `localhost`
 * answers loopback and is refused like any other loopback name). Deno implements `node:dns` too.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { lookup } from "node:dns/promises"

/** The host name did not resolve. Carries no host name and no resolver text (they may echo the URL). */
export class ResolveFailed extends Data.TaggedError("ResolveFailed")<{
  readonly reason: "not-found" | "failed"
}> {}

/** Every address a host name resolves to, as text, in the resolver's order. */
export type Resolver = (hostname: string) => Effect.Effect<ReadonlyArray<string>, ResolveFailed>

const notFoundCodes = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"])

export const system: Resolver = (hostname) =>
  Effect.tryPromise({
    try: () => lookup(hostname, { all: true }),
    catch: (error) => {
      const code = (error as { code?: unknown } | null)?.code
      return new ResolveFailed({ reason: typeof code === "string" && notFoundCodes.has(code) ? "not-found" : "failed" })
    }
  }).pipe(Effect.map((answers) => answers.map((answer) => answer.address)))

/** A fixed table (tests, demos); names are matched case-insensitively, an absent name is not found. */
export const fromRecord = (table: Readonly<Record<string, ReadonlyArray<string>>>): Resolver => {
  const lower = new Map(Object.entries(table).map(([name, addresses]) => [name.toLowerCase(), addresses]))
  return (hostname) => {
    const answer = lower.get(hostname.toLowerCase())
    return answer === undefined ? Effect.fail(new ResolveFailed({ reason: "not-found" })) : Effect.succeed(answer)
  }
}
