/**
 * The `VcsProvider` as the workflows call it: bound to one connection, and keeping that
 * connection's status in line with the provider's answers (`ConnectionHealth.statusAfter`) on
 * every call. Workflows never call the port directly, so a revoked token marks the connection
 * `error` whichever call meets it first (sync, scan, remediation, onboarding lists), and the next
 * call the provider answers (a read, a listing of a branch's files, a write, a refreshed repository
 * list; not the branch list or an unrefreshed repository list, which may come from a cache) marks
 * it `active` again. The store writes the status
 * only over `active` or `error`: an owner's `inactive` set meanwhile stays.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import * as ConnectionHealth from "../ConnectionHealth.js"
import type { OrgId } from "../Id.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { type ConnectionContext, VcsProvider } from "../ports/VcsProvider.js"
import type { Repository } from "../Repository.js"
import type { VcsProviderError, VcsWriteRejected } from "../Vcs.js"
import { connectionOf } from "./RepositoryAccess.js"

type Port = typeof VcsProvider.Service

/** Each `VcsProvider` method with its `ConnectionContext` bound. */
export type ConnectedProvider =
  & {
    readonly [K in keyof Port]: Port[K] extends (ctx: ConnectionContext, ...args: infer Args) => infer R ? (...args: Args) => R
      : never
  }
  & {
    /** The connection the calls go through (its `status` as it was read, before any call). */
    readonly context: ConnectionContext
  }

const bind = (store: typeof RepositoryStore.Service, vcs: Port, ctx: ConnectionContext): ConnectedProvider => {
  const { orgId } = ctx
  const connectionId = ctx.connection.id
  // `known`: the status the calls so far decided; `stored`: the last one written. `known` is set
  // synchronously when a call ends, so concurrent calls with the same outcome (the reads of one
  // scan) write once; writes are serialized and write the newest decision, so calls that end
  // with different outcomes leave the store at the last one
  let known = ctx.connection.status
  let stored = known
  const writing = Semaphore.makeUnsafe(1)
  const write = writing.withPermits(1)(Effect.suspend(() => {
    const status = known
    // `inactive` is never a decision (ConnectionHealth.statusAfter keeps it where it was)
    if (status === stored || status === "inactive") return Effect.void
    return Effect.map(store.vcsConnections.setHealth(orgId, connectionId, status), () => {
      stored = status
    })
  }))
  const note = (outcome: ConnectionHealth.CallOutcome): Effect.Effect<void> => {
    const next = ConnectionHealth.statusAfter(known, outcome)
    if (next === known) return Effect.void
    known = next
    return write
  }
  // runs uninterruptibly once the call ended; a defect or an interruption is no answer
  const settle = (exit: Exit.Exit<unknown, VcsProviderError | VcsWriteRejected>): Effect.Effect<void> => {
    if (Exit.isSuccess(exit)) return note(ConnectionHealth.answered)
    return settleFailure(exit)
  }
  // the repository and branch lists may be answered from the adapter's cache without asking the
  // provider: their success proves nothing about the credentials, only their failures count
  const settleFailure = (exit: Exit.Exit<unknown, VcsProviderError | VcsWriteRejected>): Effect.Effect<void> => {
    if (Exit.isSuccess(exit)) return Effect.void
    const failure = Cause.findErrorOption(exit.cause)
    return Option.isSome(failure) ? note(failure.value) : Effect.void
  }
  return {
    context: ctx,
    // a refresh always asks the provider (VcsProvider: quota is spent only then, or when nothing is cached)
    listRepositories: (options) => Effect.onExit(vcs.listRepositories(ctx, options), options.refresh ? settle : settleFailure),
    listBranches: (repository) => Effect.onExit(vcs.listBranches(ctx, repository), settleFailure),
    readFile: (file) => Effect.onExit(vcs.readFile(ctx, file), settle),
    listFiles: (at) => Effect.onExit(vcs.listFiles(ctx, at), settle),
    openRemediation: (write) => Effect.onExit(vcs.openRemediation(ctx, write), settle)
  }
}

/** The provider bound to `ctx`; its calls apply the connection-health rule. */
export const connectedProvider = (ctx: ConnectionContext): Effect.Effect<ConnectedProvider, never, RepositoryStore | VcsProvider> =>
  Effect.zipWith(RepositoryStore, VcsProvider, (store, vcs) => bind(store, vcs, ctx))

/**
 * The provider bound to a repository's connection; `not-configured` when the connection is gone
 * or inactive (`connectionOf`).
 */
export const connectedRepository = (orgId: OrgId, repository: Repository) =>
  Effect.flatMap(connectionOf(orgId, repository), connectedProvider)
