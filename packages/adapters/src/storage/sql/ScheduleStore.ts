/**
 * Claims on scheduled work (`ScheduleStore`) over SQL: one `scheduled_runs` row per key (migration
 * 0012), times in epoch milliseconds. A claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE`:
 * PostgreSQL locks the key's row for the statement, so of several hosts claiming the same run at
 * once exactly one sees the condition hold; the others change nothing.
 */
import type { ScheduleStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

export const make = (sql: SqlClient.SqlClient): typeof ScheduleStore.Service => {
  const { die } = Rows
  const changed = (rows: Effect.Effect<ReadonlyArray<unknown>, unknown>) => Effect.map(die(rows), (r) => r.length > 0)
  const held = (key: string, worker: string, dueAt: number) => sql`key = ${key} AND holder = ${worker} AND held_due_at = ${dueAt}`
  return {
    claim: ({ dueAt, key, leaseMs, now, worker }) =>
      changed(sql`INSERT INTO scheduled_runs AS r (key, holder, held_due_at, claimed_at, lease_until)
        VALUES (${key}, ${worker}, ${dueAt}, ${now}, ${now + leaseMs})
        ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, held_due_at = excluded.held_due_at,
          claimed_at = excluded.claimed_at, lease_until = excluded.lease_until
        WHERE (r.done_due_at IS NULL OR r.done_due_at < excluded.held_due_at)
          AND (r.lease_until IS NULL OR r.lease_until <= ${now})
        RETURNING key`),
    renew: ({ dueAt, key, leaseMs, now, worker }) =>
      changed(sql`UPDATE scheduled_runs SET lease_until = ${now + leaseMs} WHERE ${held(key, worker, dueAt)} RETURNING key`),
    complete: ({ dueAt, key, worker }) =>
      changed(sql`UPDATE scheduled_runs SET done_due_at = held_due_at, done_claimed_at = claimed_at,
          holder = NULL, held_due_at = NULL, claimed_at = NULL, lease_until = NULL
        WHERE ${held(key, worker, dueAt)} RETURNING key`),
    release: ({ dueAt, key, worker }) =>
      changed(sql`UPDATE scheduled_runs SET holder = NULL, held_due_at = NULL, claimed_at = NULL, lease_until = NULL
        WHERE ${held(key, worker, dueAt)} RETURNING key`),
    lastDone: (prefix) =>
      Effect.map(
        // `starts_with`, not LIKE: a prefix's `_` or `%` is no wildcard
        die(sql`SELECT key, done_due_at, done_claimed_at FROM scheduled_runs
          WHERE starts_with(key, ${prefix}) AND done_due_at IS NOT NULL`),
        (rows) =>
          new Map(
            rows.map((row: any) => [String(row.key), { dueAt: Number(row.doneDueAt), claimedAt: Number(row.doneClaimedAt) }] as const)
          )
      )
  }
}
