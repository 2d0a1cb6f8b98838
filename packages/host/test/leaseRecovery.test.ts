/**
 * Leases that follow the work (issue 16), on PostgreSQL with real processes running the BUILT host
 * (support/deliveryWorker.js): a SIGTERM lets the deliveries in flight finish, releases the rest
 * and exits 0 within its bound, and another host sends the rest at once; after a SIGKILL, a restart
 * of the same instance takes up every delivery in flight at once (it releases what the killed
 * process held), and without a restart a second host running takes them up within the 30 s lease.
 * The same for scans in flight at a SIGKILL and a restart. Leases far longer than any test are given
 * where only a release can explain the recovery. No event is lost, and every one arrives under its
 * own `webhook-id` (the event id).
 */
import { layer } from "@effect/vitest"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Pg from "pg"
import { expect } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { startTestHost } from "./support/harness.js"
import { postgresStore } from "./support/problem.js"
import { onboard, seedWithFiles, statuses } from "./support/scanHost.js"
import { until as waitUntil } from "./support/until.js"
import { Db, kill, processSuite, slowReceiver, startWorker, terminate } from "./support/workerProcess.js"

/** Longer than any test: a delivery held by such a lease is only sent again if its lease is released. */
const longLease = 10 * 60_000

await pgDescribe("leases that follow the work", (url) => {
  const orgId = "org_leasetest" as Id.OrgId
  const { caller, layer: suite } = processSuite(url, orgId, "lease test")

  /** A slow receiver and `destinations` destinations of it, with `perDestination` test events queued for each. */
  const scenario = (name: string, delayMs: number, destinations = 4, perDestination = 8) =>
    Effect.gen(function*() {
      const receiver = yield* Effect.acquireRelease(Effect.promise(() => slowReceiver(delayMs)), (r) => Effect.promise(() => r.close()))
      const webhookIds: Array<Id.WebhookId> = []
      const eventIds: Array<string> = []
      for (let i = 0; i < destinations; i++) {
        const path = `/${name}-${i}`
        const created = yield* Workflows.WebhookDestinations.createWebhook(caller, {
          name: `${name}-${i}`,
          type: "generic",
          endpointUrl: receiver.url(path),
          scope: { kind: "organization" },
          events: ["service.snooze_request.created"]
        })
        receiver.setSecret(path, created.signingSecret!)
        webhookIds.push(created.id)
      }
      for (let round = 0; round < perDestination; round++) {
        for (const id of webhookIds) eventIds.push((yield* Workflows.WebhookDestinations.testWebhook(caller, id)).eventId)
      }
      return { receiver, webhookIds, eventIds }
    })

  const rowsOf = async (client: Pg.Client, webhookIds: ReadonlyArray<string>) =>
    (await client.query("SELECT status, lease_owner FROM deliveries WHERE webhook_id = ANY($1)", [webhookIds])).rows as Array<
      { status: string; lease_owner: string | null }
    >
  const rows = (client: Pg.Client, webhookIds: ReadonlyArray<string>) => Effect.promise(() => rowsOf(client, webhookIds))
  /** Waits until every delivery of `webhookIds` succeeded. */
  const allSucceeded = (client: Pg.Client, webhookIds: ReadonlyArray<string>, total: number) =>
    until(
      "every delivery to succeed",
      async () => (await rowsOf(client, webhookIds)).filter((r) => r.status === "succeeded").length === total
    )

  /** Waits up to `ms` for `f` to hold (support/until.ts). */
  const until = (what: string, f: () => Promise<boolean> | boolean, ms = 60_000) => Effect.promise(() => waitUntil(what, f, ms, 20))

  /** Every event arrived, verified, under its own id; `exactlyOnce`: none twice either. */
  const expectAllDelivered = (
    receiver: { received: ReadonlyArray<string>; rejected: ReadonlyArray<string>; concurrent: ReadonlyArray<string> },
    eventIds: ReadonlyArray<string>,
    exactlyOnce: boolean
  ) => {
    expect(receiver.rejected).toEqual([])
    expect(receiver.concurrent).toEqual([])
    expect(new Set(receiver.received)).toEqual(new Set(eventIds))
    if (exactlyOnce) expect(receiver.received).toHaveLength(eventIds.length)
  }

  layer(suite, {
    excludeTestServices: true,
    timeout: "300 seconds"
  })((it) => {
    it.effect(
      "SIGTERM: the attempts in flight finish, the rest is released, exit 0 within the bound; another host sends the rest at once",
      () =>
        Effect.gen(function*() {
          const client = yield* Db
          const { eventIds, receiver, webhookIds } = yield* scenario("drain", 1_500)
          const drainMs = 5_000
          const first = yield* startWorker(url, { workerId: "drain-a", leaseMs: longLease, drainMs })
          yield* until("deliveries in flight", () => receiver.received.length >= webhookIds.length)
          const stopping = Date.now()
          const code = yield* Effect.promise(() => terminate(first))
          const tookMs = Date.now() - stopping
          expect(code).toBe(0)
          // the bound, and what a process needs to exit around it (a loaded machine)
          expect(tookMs).toBeLessThan(drainMs + 5_000)
          // the attempts in flight were recorded; nothing is left leased to the stopped process
          const left = yield* rows(client, webhookIds)
          expect(left.filter((r) => r.lease_owner !== null)).toEqual([])
          const sent = left.filter((r) => r.status === "succeeded").length
          expect(sent).toBeGreaterThanOrEqual(webhookIds.length)
          expect(sent).toBeLessThan(eventIds.length)

          // with a lease far longer than the test, only the release lets another host send the rest
          yield* startWorker(url, { workerId: "drain-b", leaseMs: longLease })
          yield* allSucceeded(client, webhookIds, eventIds.length)
          // what was in flight at the SIGTERM was answered and recorded: no event was sent twice
          expectAllDelivered(receiver, eventIds, true)
        }),
      120_000
    )

    it.effect(
      "SIGKILL, then a restart of the same instance: what the killed process held is taken up at once",
      () =>
        Effect.gen(function*() {
          const client = yield* Db
          const { eventIds, receiver, webhookIds } = yield* scenario("restart", 1_000)
          const first = yield* startWorker(url, { workerId: "restarted", leaseMs: longLease })
          yield* until("deliveries in flight", () => receiver.received.length >= webhookIds.length)
          yield* Effect.promise(() => kill(first))
          const held = (yield* rows(client, webhookIds)).filter((r) => r.lease_owner?.startsWith("restarted/") === true)
          expect(held.length).toBeGreaterThan(0)

          const killedAt = Date.now()
          yield* startWorker(url, { workerId: "restarted", leaseMs: longLease })
          yield* allSucceeded(client, webhookIds, eventIds.length)
          // with a lease of 10 minutes: only the release at start explains it
          expect(Date.now() - killedAt).toBeLessThan(60_000)
          // the attempts cut by the kill were sent again, under the same id
          expectAllDelivered(receiver, eventIds, false)
        }),
      120_000
    )

    it.effect(
      "SIGKILL without a restart: a second host running takes the deliveries up within the default 30 s lease",
      () =>
        Effect.gen(function*() {
          const client = yield* Db
          const { eventIds, receiver, webhookIds } = yield* scenario("standby", 1_000)
          // default lease (30 s) and renewal (10 s)
          const victim = yield* startWorker(url, { workerId: "victim" })
          yield* until("deliveries in flight", () => receiver.received.length >= webhookIds.length)
          // the standby starts while the victim holds every delivery: it finds nothing to claim
          yield* startWorker(url, { workerId: "standby" })
          yield* Effect.promise(() => kill(victim))
          const killedAt = Date.now()
          yield* allSucceeded(client, webhookIds, eventIds.length)
          expect(Date.now() - killedAt).toBeLessThan(60_000)
          expectAllDelivered(receiver, eventIds, false)
        }),
      120_000
    )

    it.effect(
      "scans in flight at a SIGKILL are taken up at once by a restart of the same instance",
      () =>
        Effect.gen(function*() {
          // a host in this process to onboard a repository (queuing its scans) and read their statuses; it runs no worker
          const host = yield* Effect.acquireRelease(
            Effect.promise(() => startTestHost({ store: postgresStore(url)(), seed: seedWithFiles() })),
            (h) => Effect.promise(() => h.stop())
          )
          const repositoryId = yield* Effect.promise(() => onboard(host, "1001", ["main", "release", "develop"]))
          const scanWorker = { concurrency: 4, pollIntervalMs: 20, leaseMs: longLease }
          const first = yield* startWorker(url, { workerId: "scanner", scanWorker, hangScans: true })
          yield* until("three scans in flight", async () => Object.values(await statuses(host, repositoryId)).every((s) => s === "running"))
          yield* Effect.promise(() => kill(first))

          const killedAt = Date.now()
          yield* startWorker(url, { workerId: "scanner", scanWorker })
          yield* until(
            "the scans to succeed",
            async () => Object.values(await statuses(host, repositoryId)).every((s) => s === "succeeded")
          )
          // with a lease of 10 minutes: only the release at start explains it
          expect(Date.now() - killedAt).toBeLessThan(60_000)
          const scans = (yield* Effect.promise(() => host.request("GET", `/api/v1/org/org_acme/repositories/${repositoryId}/scans`))).body
            .items
          expect(scans).toHaveLength(3)
          // the same scans, claimed by the killed process and then by the restarted one
          for (const s of scans) expect(s).toMatchObject({ status: "succeeded", attempts: 2, findingCount: 1 })
        }),
      120_000
    )
  })
})
