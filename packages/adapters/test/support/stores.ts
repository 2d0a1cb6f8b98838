/**
 * Every store of a layer in one object, each section under its port's name (`store.teams`,
 * `store.scans`, `store.outbox`), and the transaction they share: what tests read and arrange
 * state through. Workflows never take this: each names the stores it uses.
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
  Transaction,
  WebhookStore
} from "@image-policy/core"
import * as Effect from "effect/Effect"

export const allStores = Effect.gen(function*() {
  const { organizations, routines, teams } = yield* OrganizationStore
  const { assignments, repositories, vcsConnections } = yield* RepositoryStore
  const { drafts, policyGroups, published } = yield* PolicyStore
  return {
    transaction: (yield* Transaction).transaction,
    organizations,
    teams,
    routines,
    vcsConnections,
    repositories,
    assignments,
    policyGroups,
    drafts,
    published,
    scans: yield* ScanStore,
    schedule: yield* ScheduleStore,
    remediations: yield* RemediationStore,
    snoozeRequests: yield* SnoozeStore,
    apiKeys: yield* AccessStore,
    members: (yield* AccessStore).members,
    roles: (yield* AccessStore).roles,
    audit: yield* AuditStore,
    webhooks: yield* WebhookStore,
    outbox: yield* OutboxStore,
    reports: yield* ReportStore,
    sessions: yield* SessionStore
  }
})

export type AllStores = Effect.Success<typeof allStores>
