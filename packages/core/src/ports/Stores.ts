/**
 * Every store port and the `Transaction` they share: what one storage layer provides (memory,
 * PGlite or PostgreSQL), and what a host composes with one line. Workflows never ask for all of
 * them: each names in its type the stores it uses.
 */
import type { AccessStore } from "./AccessStore.js"
import type { AuditStore } from "./AuditStore.js"
import type { OrganizationStore } from "./OrganizationStore.js"
import type { OutboxStore } from "./OutboxStore.js"
import type { PolicyStore } from "./PolicyStore.js"
import type { RemediationStore } from "./RemediationStore.js"
import type { ReportStore } from "./ReportStore.js"
import type { RepositoryStore } from "./RepositoryStore.js"
import type { ScanStore } from "./ScanStore.js"
import type { ScheduleStore } from "./ScheduleStore.js"
import type { SessionStore } from "./SessionStore.js"
import type { SnoozeStore } from "./SnoozeStore.js"
import type { StoreHealth } from "./StoreHealth.js"
import type { Transaction } from "./Transaction.js"
import type { WebhookStore } from "./WebhookStore.js"

export type Stores =
  | AccessStore
  | AuditStore
  | OrganizationStore
  | OutboxStore
  | PolicyStore
  | RemediationStore
  | RepositoryStore
  | ScanStore
  | SnoozeStore
  | Transaction
  | WebhookStore
  | ReportStore
  | StoreHealth
  | ScheduleStore
  | SessionStore
