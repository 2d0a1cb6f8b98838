/**
 * The outbox has no read route, so suites that assert events read the store behind the host:
 * - memory: the host runs over a memory store instance built here, whose `outbox.append` keeps a
 *   copy of every event of org_acme before it delegates (a failed transaction's events are copied
 *   too, so assert on the events of answers just received);
 * - PostgreSQL: the committed rows of `outbox_events`, oldest first, queried with `pg` directly.
 */
import { MemoryStore } from "@image-policy/adapters"
import { type Outbox, OutboxStore } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Pg from "pg"
import { postgresStore, type StoreFactory } from "./problem.js"

export interface Setup {
  readonly store: StoreFactory
  /** Every outbox event of org_acme committed so far, oldest first. */
  readonly outbox: () => Promise<ReadonlyArray<Outbox.OutboxEvent>>
}

export const memorySetup = (): Setup => {
  const events: Array<Outbox.OutboxEvent> = []
  const instance = Effect.runSync(MemoryStore.make)
  const outbox = Context.get(instance, OutboxStore)
  const observed = Context.add(instance, OutboxStore, {
    ...outbox,
    append: (orgId, rows) =>
      Effect.andThen(
        Effect.sync(() => {
          if (orgId === "org_acme") events.push(...rows.map((r) => r.event))
        }),
        outbox.append(orgId, rows)
      )
  })
  return { store: () => Layer.succeedContext(observed), outbox: async () => [...events] }
}

export const postgresSetup = (url: string): Setup => ({
  store: postgresStore(url),
  outbox: async () => {
    const client = new Pg.Client({ connectionString: url })
    await client.connect()
    try {
      const result = await client.query("SELECT doc FROM outbox_events WHERE org_id = $1 ORDER BY doc->>'time', id", ["org_acme"])
      return result.rows.map((row) => row.doc)
    } finally {
      await client.end()
    }
  }
})
