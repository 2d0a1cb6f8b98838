/**
 * A host's request to its workers to stop taking work (graceful stop, SIGTERM): once done, the
 * delivery and scan workers claim nothing more, start no new attempt, and end when what they hold
 * is finished; the runtime bounds how long it waits for that, then interrupts them and releases
 * their leases (runtime/node.ts). A host that never stops gracefully has one that is never done.
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"

export const Stopping = Context.Reference<Deferred.Deferred<void>>("@image-policy/host/Stopping", {
  defaultValue: () => Deferred.makeUnsafe<void>()
})

export const make = (): Deferred.Deferred<void> => Deferred.makeUnsafe<void>()

export const requested = (stopping: Deferred.Deferred<void>): boolean => Deferred.isDoneUnsafe(stopping)
