/**
 * Remediation through the core's workflows (issue 7): a routine scan ends in one remediation request
 * with the expected diff, its audit row and its webhook event.
 */
import { assert, describe, it } from "@effect/vitest"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import {
  caller,
  compose,
  connectionId,
  day,
  deployment,
  dockerfile,
  events,
  onboard,
  orgId,
  publish,
  routineRun,
  run,
  runQueued,
  standardMappings,
  start,
  workflow
} from "./support/scanWorkflows.js"

describe("remediation", () => {
  it.effect("after a routine scan: one request with the expected diff, its audit row and its event", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        assert.deepStrictEqual(fixture.remediations("acme/api"), [], "onboarding scans remediate nothing")

        const { queued, scans } = yield* routineRun(store)
        assert.strictEqual(queued, 1)
        assert.strictEqual(scans[0]?.trigger, "routine")
        const [opened] = fixture.remediations("acme/api")
        assert.strictEqual(opened?.head, "image-policy/remediate/main")
        assert.strictEqual(opened?.base, "main")
        assert.strictEqual(opened?.title, "Update container images on main")
        const files = Object.fromEntries(opened!.files.map((f) => [f.path, f.content]))
        assert.deepStrictEqual(Object.keys(files).sort(), [
          ".github/workflows/ci.yml",
          "Dockerfile",
          "deploy/api.yaml",
          "docker-compose.yml"
        ])
        assert.strictEqual(files["Dockerfile"], dockerfile.replace("FROM node:20 AS build", "FROM node:20.11.1 AS build"))
        assert.strictEqual(files["docker-compose.yml"], compose.replace("\"redis:7\"", "\"redis:7.4\""))
        assert.strictEqual(files["deploy/api.yaml"], deployment.replace("migrate:1.4", "migrate:1.5"))
        assert.strictEqual(files[".github/workflows/ci.yml"], workflow.replace("container: node:20", "container: node:20.11.1"))
        assert.include(opened!.body, "`Dockerfile:6`: `node:20` -> `node:20.11.1`")
        assert.include(opened!.body, "`docker-compose.yml:2`: `redis:7` -> `redis:7.4`")

        const [request] = (yield* Workflows.Remediation.listRemediationRequests(caller, repository.id, { limit: 10 })).items
        assert.strictEqual(request?.status, "open")
        assert.strictEqual(request?.number, opened!.number)
        assert.strictEqual(request?.url, opened!.url)
        assert.strictEqual(request?.scanId, scans[0]!.id)
        assert.deepStrictEqual(request?.changes.map((c) => `${c.file}:${c.line}:${c.column} ${c.from} -> ${c.to}`), [
          ".github/workflows/ci.yml:6:16 node:20 -> node:20.11.1",
          "Dockerfile:6:6 node:20 -> node:20.11.1",
          "deploy/api.yaml:9:18 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.5",
          "docker-compose.yml:2:11 redis:7 -> redis:7.4"
        ])

        const audit = (yield* store.audit.list(orgId, { limit: 50 })).items.find((a) => a.action === "remediation.open")
        assert.deepStrictEqual(audit?.actor, { kind: "system", name: "routine-worker" })
        assert.strictEqual(audit?.resourceId, request!.id)
        const [event] = yield* events(store)
        assert.strictEqual(event?.type, "service.remediation_pull_request.created")
        assert.deepStrictEqual(event?.data, {
          repository_id: repository.id,
          pull_request_url: opened!.url,
          action: "created",
          changed_at: new Date(start + 7 * day).toISOString()
        })
      })
    ))

  it.effect("a later run updates the open request instead of opening a second; a closed one is superseded", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        yield* routineRun(store)
        const [first] = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items

        // the branch moved: a new file with an old image
        fixture.files.setFile(
          { orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main", path: "worker.Dockerfile" },
          "FROM redis:7\n"
        )
        yield* routineRun(store)
        assert.strictEqual(fixture.remediations("acme/api").length, 1)
        assert.strictEqual(fixture.remediations("acme/api")[0]!.writes, 2)
        const updated = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.strictEqual(updated.length, 1)
        assert.strictEqual(updated[0]!.id, first!.id)
        assert.strictEqual(updated[0]!.changes.length, 5)
        assert.notStrictEqual(updated[0]!.updatedAt, first!.updatedAt)

        fixture.closeRemediation("acme/api", first!.number!)
        yield* routineRun(store)
        const after = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual(after.map((r) => `${r.number} ${r.status}`), ["2 open", "1 superseded"])
        assert.deepStrictEqual((yield* events(store)).map((e) => e.type), Array(3).fill("service.remediation_pull_request.created"))
      })
    ))

  it.effect("an approved snooze suppresses its image's change until it expires; nothing to change opens nothing", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish([["node:20", "node:20.11.1"]])
        yield* runQueued(store)
        const snooze = yield* Workflows.SnoozeRequests.createSnoozeRequest(caller, {
          repositoryId: repository.id,
          fromImage: "docker.io/library/node:20",
          reason: "certification",
          until: "2026-02-12T00:00:00Z"
        })
        const pendingScan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
        const target = { orgId, repositoryId: repository.id, branchName: "main", scanId: pendingScan.id }
        assert.isTrue(Option.isSome(yield* Workflows.Remediation.remediateBranch(target)), "a pending snooze suppresses nothing")
        fixture.closeRemediation("acme/api", 1)

        yield* Workflows.SnoozeRequests.reviewSnoozeRequest(caller, snooze.id, { decision: "approve" })
        yield* TestClock.adjust(day)
        assert.isTrue(Option.isNone(yield* Workflows.Remediation.remediateBranch(target)))
        assert.strictEqual(fixture.remediations("acme/api").length, 1, "no new request while snoozed")
        yield* TestClock.adjust(10 * day) // past `until`
        const after = yield* Workflows.Remediation.remediateBranch(target)
        assert.strictEqual(Option.getOrThrow(after).number, 2)
      })
    ))

  it.effect("a refused write records a failed request, its audit row and the .failed event; the next run opens one", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
        const target = { orgId, repositoryId: repository.id, branchName: "main", scanId: scan.id }

        fixture.failNextWrite("forbidden")
        const failed = Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target))
        assert.deepStrictEqual([failed.status, failed.failure, failed.number, failed.url], ["failed", "permission-denied", null, null])
        assert.strictEqual(failed.changes.length, 4)
        const audit = (yield* store.audit.list(orgId, { limit: 50 })).items.find((a) => a.action === "remediation.fail")
        assert.deepStrictEqual([audit?.outcome, audit?.detail], ["rejected", "permission-denied"])
        const [event] = yield* events(store)
        assert.deepStrictEqual(event?.data, {
          repository_id: repository.id,
          action: "failed",
          failure_kind: "permission-denied",
          changed_at: new Date(start).toISOString()
        })
        // the same scan run again (its worker died after recording) with the same outcome: nothing new
        fixture.failNextWrite("forbidden")
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).id, failed.id)
        assert.strictEqual((yield* events(store)).length, 1)

        yield* TestClock.adjust(60_000)
        fixture.failNextWrite("rate-limited")
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "rate-limited")
        yield* TestClock.adjust(60_000)
        fixture.failNextWrite("conflict")
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "conflict")
        yield* TestClock.adjust(60_000)
        const opened = Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target))
        assert.strictEqual(opened.status, "open")
        const rows = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual(rows.map((r) => r.status), ["open", "failed", "failed", "failed"])
        assert.deepStrictEqual((yield* events(store)).map((e) => e.type.split(".").pop()), ["failed", "failed", "failed", "created"])
        // run again for the same scan: the provider's request is updated with the same changes, and
        // nothing new is recorded, audited or told
        yield* TestClock.adjust(60_000)
        assert.deepStrictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)), opened)
        assert.deepStrictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items.map((r) => r.status), [
          "open",
          "failed",
          "failed",
          "failed"
        ])
        assert.strictEqual((yield* events(store)).length, 4)
        assert.strictEqual((yield* store.audit.list(orgId, { limit: 50 })).items.filter((a) => a.action === "remediation.update").length, 0)
      })
    ))

  it.effect("a file that moved since the scan keeps its text: only the changes still in place are made", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        const at = { orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main" }
        fixture.files.setFile({ ...at, path: "Dockerfile" }, "# rewritten since\nFROM node:20\n")
        const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
        const request = Option.getOrThrow(
          yield* Workflows.Remediation.remediateBranch({ orgId, repositoryId: repository.id, branchName: "main", scanId: scan.id })
        )
        assert.deepStrictEqual(request.changes.map((c) => c.file), [".github/workflows/ci.yml", "deploy/api.yaml", "docker-compose.yml"])
        assert.notInclude(fixture.remediations("acme/api")[0]!.files.map((f) => f.path), "Dockerfile")
      })
    ))
})
