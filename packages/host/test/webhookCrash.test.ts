/**
 * Webhook delivery survives a crashed worker, and workers side by side never send one delivery
 * at the same time (docs/webhooks.md "Retries": at least once, leases, `SKIP LOCKED`), on
 * PostgreSQL. The workers are real processes running the BUILT host (support/deliveryWorker.js),
 * killed with SIGKILL: no cleanup code of theirs runs. Events are queued through the core's
 * workflows in this process, over the same database.
 */
import { layer } from "@effect/vitest"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Pg from "pg"
import { expect } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import * as Receiver from "../../adapters/test/support/receiver.js"
import { until as waitUntil } from "./support/until.js"
import { Db, kill, processSuite, slowReceiver, startWorker } from "./support/workerProcess.js"

// -------------------------------------------------------------------------------------------------

/** A receiver for the test's scope: closed when the test ends, whatever its outcome. */
const scopedReceiver = <R extends { readonly close: () => Promise<void> }>(start: () => Promise<R>) =>
  Effect.acquireRelease(Effect.promise(start), (r) => Effect.promise(() => r.close()))

await pgDescribe("webhook delivery with crashing and concurrent workers", (url) => {
  const orgId = "org_crashtest" as Id.OrgId
  const { caller, layer: suite } = processSuite(url, orgId, "crash test")

  /** Delivery rows of these destinations by status. */
  const statuses = async (client: Pg.Client, webhookIds: ReadonlyArray<string>) => {
    const rows = await client.query(
      "SELECT status, count(*)::int AS n FROM deliveries WHERE webhook_id = ANY($1) GROUP BY status",
      [webhookIds]
    )
    return Object.fromEntries(rows.rows.map((r: { status: string; n: number }) => [r.status, r.n])) as Record<string, number>
  }

  const createDestination = (name: string, endpointUrl: string) =>
    Workflows.WebhookDestinations.createWebhook(caller, {
      name,
      type: "generic",
      endpointUrl,
      scope: { kind: "organization" },
      events: ["service.snooze_request.created"]
    })

  /** Queues `count` test events for the destination, one transaction each; answers their ids. */
  const queueTests = (webhookId: Id.WebhookId, count: number) =>
    Effect.forEach(
      Array.from({ length: count }),
      () => Effect.map(Workflows.WebhookDestinations.testWebhook(caller, webhookId), (queued) => queued.eventId)
    )

  /** Waits up to 30 s for `f` to hold (see support/until.ts). */
  const until = (what: string, f: () => Promise<boolean> | boolean) => Effect.promise(() => waitUntil(what, f, 30_000, 10))

  // one set of services, database client and organization for both tests, built before the first
  layer(suite, {
    excludeTestServices: true,
    timeout: "300 seconds"
  })((it) => {
    it.effect(
      "a worker killed mid-batch loses nothing: after its lease expires another worker delivers the rest",
      () =>
        Effect.gen(function*() {
          const client = yield* Db
          const total = 200
          const answered = 40
          // answers the first 40 deliveries, then holds the next one open: the worker is mid-batch
          let firstSeen = 0
          const receiver = yield* scopedReceiver(() =>
            Receiver.start({
              mode: "generic",
              respond: () => (++firstSeen > answered ? "hang" : { status: 200 })
            })
          )
          const destination = yield* createDestination("crash", receiver.url("/crash"))
          receiver.setSecret(destination.signingSecret!)
          const eventIds = yield* queueTests(destination.id, total)
          expect(yield* Effect.promise(() => statuses(client, [destination.id]))).toEqual({ pending: total })

          // a short lease (the shortest the worker uses with a 2 s time limit) so the test need not wait long
          const lease = { leaseMs: 6_000, timeoutMs: 2_000, batchSize: 32, schedule: [0.1] }
          const first = yield* startWorker(url, { workerId: "crash-first", ...lease })
          yield* Effect.promise(() =>
            waitUntil("the first worker to hang mid-batch", () => receiver.deliveries.length > answered, 30_000, 10).catch(async (e) => {
              // what the receiver and the table saw, to tell a worker that never sent from one that was refused
              const seen = {
                deliveries: receiver.deliveries.length,
                rejections: receiver.rejections,
                rows: await statuses(client, [destination.id])
              }
              throw new Error(`${e.message}: ${JSON.stringify(seen)}`)
            })
          )
          yield* Effect.promise(() => kill(first))

          // killed mid-batch: what it claimed and did not finish is still leased to it
          const leased = yield* Effect.promise(() =>
            client.query(
              "SELECT event_id FROM deliveries WHERE webhook_id = $1 AND status = 'pending' AND lease_owner LIKE 'crash-first/%'",
              [destination.id]
            )
          )
          expect(leased.rows.length).toBeGreaterThan(0)
          expect(yield* Effect.promise(() => statuses(client, [destination.id]))).toEqual({
            succeeded: answered,
            pending: total - answered
          })

          receiver.setResponder(() => ({ status: 200 }))
          yield* startWorker(url, { workerId: "crash-second", ...lease })
          yield* until("every delivery to succeed", async () => (await statuses(client, [destination.id])).succeeded === total)

          // at least once: every event reached the receiver, verified, and none is missing
          expect(receiver.rejections).toEqual([])
          const delivered = new Set([...receiver.deliveries, ...receiver.duplicates].map((d) => d.id))
          expect([...delivered].sort()).toEqual([...eventIds].sort())
          expect(receiver.deliveries).toHaveLength(total)
          // the delivery that hung was sent again once its lease expired; only leased ones were repeated
          const leasedIds = new Set(leased.rows.map((r: { event_id: string }) => r.event_id))
          expect(receiver.duplicates.length).toBeGreaterThan(0)
          for (const d of receiver.duplicates) expect(leasedIds.has(d.id)).toBe(true)
          const hung = receiver.deliveries[answered]!.id
          expect(receiver.duplicates.map((d) => d.id)).toContain(hung)
          const rows = yield* Effect.promise(() =>
            client.query("SELECT status, lease_owner, last_status_code FROM deliveries WHERE webhook_id = $1", [destination.id])
          )
          for (const row of rows.rows) expect(row).toEqual({ status: "succeeded", lease_owner: null, last_status_code: 200 })
        }),
      60_000
    )

    it.effect(
      "two workers at once never send the same delivery twice, let alone at the same time (SKIP LOCKED)",
      () =>
        Effect.gen(function*() {
          const client = yield* Db
          const receiver = yield* scopedReceiver(() => slowReceiver(40))
          const destinations: Array<Id.WebhookId> = []
          for (const name of ["pair-0", "pair-1", "pair-2", "pair-3"]) {
            const path = `/${name}`
            const created = yield* createDestination(name, receiver.url(path))
            receiver.setSecret(path, created.signingSecret!)
            destinations.push(created.id)
          }
          // both workers poll before anything is queued, so they compete for every claim
          const settings = { leaseMs: 60_000, batchSize: 8, concurrency: 4 }
          yield* Effect.all([
            startWorker(url, { workerId: "pair-a", ...settings }),
            startWorker(url, { workerId: "pair-b", ...settings })
          ], { concurrency: 2 })
          const owners = new Set<string>()
          let sampling = true
          const sampler = (async () => {
            while (sampling) {
              const rows = await client.query(
                "SELECT DISTINCT lease_owner FROM deliveries WHERE webhook_id = ANY($1) AND lease_owner IS NOT NULL",
                [destinations]
              )
              // the instance of each owner (`instance/start`)
              for (const r of rows.rows) owners.add(String(r.lease_owner).split("/")[0]!)
              await new Promise((r) => setTimeout(r, 5))
            }
          })()
          const eventIds: Array<string> = []
          for (let round = 0; round < 50; round++) {
            for (const id of destinations) eventIds.push(...(yield* queueTests(id, 1)))
          }
          yield* until("every delivery to succeed", async () => (await statuses(client, destinations)).succeeded === eventIds.length)
          sampling = false
          yield* Effect.promise(() => sampler)

          expect(owners).toEqual(new Set(["pair-a", "pair-b"]))
          expect(receiver.rejected).toEqual([])
          expect(receiver.concurrent).toEqual([])
          expect(receiver.received).toHaveLength(eventIds.length)
          expect(new Set(receiver.received)).toEqual(new Set(eventIds))
        }),
      60_000
    )
  })
})
