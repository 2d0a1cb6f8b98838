/**
 * The storage contract: one suite, run against every store (memory, PGlite, PostgreSQL) by a
 * one-line test file each, like @effect/sql-pg runs one suite per driver. Its tests live one file
 * per store port under `storeContract/`; this file runs them all over one layer.
 */
import { layer } from "@effect/vitest"
import type { Stores } from "@image-policy/core"
import * as Layer from "effect/Layer"
import { access } from "./storeContract/access.js"
import { audit } from "./storeContract/audit.js"
import { leases } from "./storeContract/leases.js"
import { members } from "./storeContract/members.js"
import { organizations } from "./storeContract/organizations.js"
import { outbox } from "./storeContract/outbox.js"
import { outboxRecording } from "./storeContract/outboxRecording.js"
import { policies } from "./storeContract/policies.js"
import { remediations } from "./storeContract/remediations.js"
import { reports } from "./storeContract/reports.js"
import { repositories } from "./storeContract/repositories.js"
import { scans } from "./storeContract/scans.js"
import { schedule } from "./storeContract/schedule.js"
import { scoping } from "./storeContract/scoping.js"
import { sessions } from "./storeContract/sessions.js"
import { snoozes } from "./storeContract/snoozes.js"
import * as Support from "./storeContract/support.js"
import { transactions } from "./storeContract/transactions.js"
import { webhooks } from "./storeContract/webhooks.js"
// organization administration (issue 15)
import { administration } from "./storeContract/administration.js"

export type { ContractOptions } from "./storeContract/support.js"

export const storeContract = (name: string, stores: Layer.Layer<Stores, unknown>, options: Support.ContractOptions = {}) => {
  const contract = Support.make(options)
  // one store for the whole suite, on live services (no TestClock): a store's pool and timeouts run on real time
  layer(Layer.provideMerge(contract.opened, stores), { excludeTestServices: true })(`store contract: ${name}`, (it) => {
    for (
      const register of [
        organizations,
        scoping,
        repositories,
        policies,
        access,
        webhooks,
        snoozes,
        audit,
        transactions,
        outbox,
        outboxRecording,
        scans,
        leases,
        remediations,
        reports,
        administration,
        members,
        schedule,
        sessions
      ]
    ) register(it, contract)
  })
}
