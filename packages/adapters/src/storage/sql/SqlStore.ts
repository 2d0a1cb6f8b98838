/**
 * The SQL stores: every store port over one `effect/sql` client, used on the embedded PGlite and
 * on PostgreSQL. They share the client's transaction, so a state change, its audit row and its
 * outbox rows commit together whichever stores wrote them. One module per aggregate; the row
 * helpers they share are in `Rows.ts`.
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
import * as SqlClient from "effect/sql/SqlClient"
import * as Access from "./AccessStore.js"
import * as Audit from "./AuditStore.js"
import * as Health from "./HealthStore.js"
import * as Organizations from "./OrganizationStore.js"
import * as Outbox from "./OutboxStore.js"
import * as Policies from "./PolicyStore.js"
import { PoolStats } from "./PoolStats.js"
import * as Remediations from "./RemediationStore.js"
import * as Reports from "./ReportStore.js"
import * as Repositories from "./RepositoryStore.js"
import * as Rows from "./Rows.js"
import * as Scans from "./ScanStore.js"
import * as Schedule from "./ScheduleStore.js"
import * as Sessions from "./SessionStore.js"
import * as Snoozes from "./SnoozeStore.js"
import * as Webhooks from "./WebhookStore.js"

/** Every store over the client in context, and the client's `PoolStats` when it has them. */
export const make: Effect.Effect<Context.Context<Stores>, never, SqlClient.SqlClient> = Effect.map(
  Effect.all([SqlClient.SqlClient, PoolStats]),
  ([sql, pool]) =>
    Context.make(Transaction, { transaction: Rows.make(sql).transaction }).pipe(
      Context.add(OrganizationStore, Organizations.make(sql)),
      Context.add(RepositoryStore, Repositories.make(sql)),
      Context.add(PolicyStore, Policies.make(sql)),
      Context.add(ScanStore, Scans.make(sql)),
      Context.add(ScheduleStore, Schedule.make(sql)),
      Context.add(RemediationStore, Remediations.make(sql)),
      Context.add(SnoozeStore, Snoozes.make(sql)),
      Context.add(AccessStore, Access.make(sql)),
      Context.add(SessionStore, Sessions.make(sql)),
      Context.add(AuditStore, Audit.make(sql)),
      Context.add(WebhookStore, Webhooks.make(sql)),
      Context.add(OutboxStore, Outbox.make(sql)),
      Context.add(ReportStore, Reports.make(sql)),
      Context.add(StoreHealth, Health.make(sql)),
      Context.add(PoolStats, pool)
    )
)
