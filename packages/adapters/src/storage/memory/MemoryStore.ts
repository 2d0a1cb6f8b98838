/**
 * The memory stores: every store port over one shared state (`State.ts`), for embedding and fast
 * tests. One instance's stores share one transaction, as the SQL stores share one connection's.
 */
import {
  AccessStore,
  AuditStore,
  OrganizationStore,
  OutboxStore,
  PolicyStore,
  RemediationStore,
  ReportStore,
  RepositoryStore,
  ScanStore,
  ScheduleStore,
  SessionStore,
  SnoozeStore,
  StoreHealth,
  type Stores,
  Transaction,
  WebhookStore
} from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Access from "./AccessStore.js"
import * as Audit from "./AuditStore.js"
import * as Organizations from "./OrganizationStore.js"
import * as Outbox from "./OutboxStore.js"
import * as Policies from "./PolicyStore.js"
import * as Remediations from "./RemediationStore.js"
import * as Reports from "./ReportStore.js"
import * as Repositories from "./RepositoryStore.js"
import * as Scans from "./ScanStore.js"
import * as Schedule from "./ScheduleStore.js"
import * as Sessions from "./SessionStore.js"
import * as Snoozes from "./SnoozeStore.js"
import * as State from "./State.js"
import * as Webhooks from "./WebhookStore.js"

/** A fresh memory instance: every store over one new state. */
export const make: Effect.Effect<Context.Context<Stores>> = Effect.sync(() => {
  const s = State.make()
  return Context.make(Transaction, { transaction: s.transaction }).pipe(
    Context.add(OrganizationStore, Organizations.make(s)),
    Context.add(RepositoryStore, Repositories.make(s)),
    Context.add(PolicyStore, Policies.make(s)),
    Context.add(ScanStore, Scans.make(s)),
    Context.add(ScheduleStore, Schedule.make(s)),
    Context.add(RemediationStore, Remediations.make(s)),
    Context.add(SnoozeStore, Snoozes.make(s)),
    Context.add(AccessStore, Access.make(s)),
    Context.add(SessionStore, Sessions.make(s)),
    Context.add(AuditStore, Audit.make(s)),
    Context.add(WebhookStore, Webhooks.make(s)),
    Context.add(OutboxStore, Outbox.make(s)),
    Context.add(ReportStore, Reports.make(s)),
    // one process, no schema: reachable and current whenever it exists
    Context.add(StoreHealth, { check: Effect.succeed({ reachable: true, pendingMigrations: [] }) })
  )
})

export const layer: Layer.Layer<Stores> = Layer.effectContext(make)
