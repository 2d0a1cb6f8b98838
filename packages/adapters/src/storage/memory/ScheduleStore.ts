/** Claims on scheduled work (`ScheduleStore`) in memory: one row per key, as the SQL table holds. */
import type { ScheduleStore } from "@image-policy/core"
import { put, type State } from "./State.js"

interface Row {
  readonly doneDueAt: number | null
  readonly doneClaimedAt: number | null
  readonly holder: string | null
  readonly heldDueAt: number | null
  readonly claimedAt: number | null
  readonly leaseUntil: number | null
}

const empty: Row = { doneDueAt: null, doneClaimedAt: null, holder: null, heldDueAt: null, claimedAt: null, leaseUntil: null }

export const make = (s: State): typeof ScheduleStore.Service => {
  const rows = new Map<string, Row>()
  const holds = (row: Row | undefined, worker: string, dueAt: number): row is Row =>
    row !== undefined && row.holder === worker && row.heldDueAt === dueAt
  return {
    claim: ({ dueAt, key, leaseMs, now, worker }) =>
      s.run((undo) => {
        const row = rows.get(key) ?? empty
        if (row.doneDueAt !== null && row.doneDueAt >= dueAt) return false
        if (row.leaseUntil !== null && row.leaseUntil > now) return false
        put(undo, rows, key, { ...row, holder: worker, heldDueAt: dueAt, claimedAt: now, leaseUntil: now + leaseMs })
        return true
      }),
    renew: ({ dueAt, key, leaseMs, now, worker }) =>
      s.run((undo) => {
        const row = rows.get(key)
        if (!holds(row, worker, dueAt)) return false
        put(undo, rows, key, { ...row, leaseUntil: now + leaseMs })
        return true
      }),
    complete: ({ dueAt, key, worker }) =>
      s.run((undo) => {
        const row = rows.get(key)
        if (!holds(row, worker, dueAt)) return false
        put(undo, rows, key, { ...empty, doneDueAt: dueAt, doneClaimedAt: row.claimedAt })
        return true
      }),
    release: ({ dueAt, key, worker }) =>
      s.run((undo) => {
        const row = rows.get(key)
        if (!holds(row, worker, dueAt)) return false
        put(undo, rows, key, { ...row, holder: null, heldDueAt: null, claimedAt: null, leaseUntil: null })
        return true
      }),
    lastDone: (prefix) =>
      s.read(() => {
        const done = new Map<string, { readonly dueAt: number; readonly claimedAt: number }>()
        for (const [key, row] of rows) {
          if (key.startsWith(prefix) && row.doneDueAt !== null && row.doneClaimedAt !== null) {
            done.set(key, { dueAt: row.doneDueAt, claimedAt: row.doneClaimedAt })
          }
        }
        return done
      })
  }
}
