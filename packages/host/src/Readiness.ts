/**
 * What `GET /readyz` checks, in order: the store answers a query, its migrations are the ones this
 * build knows, and every worker this process started still runs. Each check names only states,
 * never a connection string or an error message, since readiness is served without a key.
 */
import { StoreHealth } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { RunningWorkers } from "./workers/Running.js"

export interface Check {
  readonly name: "store" | "migrations" | "workers"
  readonly ok: boolean
  readonly detail: string
}

export const checks: Effect.Effect<ReadonlyArray<Check>, never, StoreHealth> = Effect.gen(function*() {
  const store = yield* (yield* StoreHealth).check
  const workers = (yield* RunningWorkers).status()
  const stopped = workers.filter((w) => !w.running).map((w) => w.name)
  return [
    { name: "store", ok: store.reachable, detail: store.reachable ? "the store answered a query" : "the store did not answer" },
    {
      name: "migrations",
      ok: store.reachable && store.pendingMigrations.length === 0,
      detail: !store.reachable
        ? "unknown while the store does not answer"
        : store.pendingMigrations.length === 0
        ? "every known migration is applied"
        : `pending: ${store.pendingMigrations.join(", ")} (run \`image-policy migrate\`)`
    },
    {
      name: "workers",
      ok: stopped.length === 0,
      detail: stopped.length > 0
        ? `stopped: ${stopped.join(", ")}`
        : workers.length === 0
        ? "this process runs no worker"
        : `running: ${workers.map((w) => w.name).join(", ")}`
    }
  ]
})
