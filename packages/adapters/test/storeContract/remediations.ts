/** Storage contract: remediation requests (`RemediationStore`). */
import { assert } from "@effect/vitest"
import type { Remediation } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, stamp } from "./support.js"

export const remediations = (
  it: ContractIt,
  { store, newOrg, remediation, trackedRepository, connection, repository, team, routine }: Contract
) => {
  it.effect("remediation requests: put inserts or replaces, get, latest per branch, list newest first", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const r1 = remediation(repo.id, "main")
      const r2: Remediation.RemediationRequest = {
        ...remediation(repo.id, "release", "failed"),
        failure: "permission-denied",
        number: null,
        url: null
      }
      const r3 = remediation(repo.id, "main")
      for (const r of [r1, r2, r3]) yield* store.remediations.put(org.id, r)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, r1.id)), r1)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, r2.id)), r2)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main")), r3)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "release")), r2)
      assert.isTrue(Option.isNone(yield* store.remediations.latest(org.id, repo.id, "develop")))
      // the newest that did not fail: a failed request after an open one leaves the open one found
      const r4: Remediation.RemediationRequest = { ...remediation(repo.id, "main", "failed"), failure: "conflict", number: null, url: null }
      yield* store.remediations.put(org.id, r4)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main")), r4)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main", { excludeFailed: true })), r3)
      assert.isTrue(Option.isNone(yield* store.remediations.latest(org.id, repo.id, "release", { excludeFailed: true })))

      const superseded = { ...r1, status: "superseded" as const, updatedAt: stamp() }
      yield* store.remediations.put(org.id, superseded)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, r1.id)), superseded)
      const listed = yield* allPages((p) => store.remediations.list(org.id, repo.id, p), 2)
      assert.deepStrictEqual(listed.items, [r4, r3, r2, superseded])
      assert.strictEqual(listed.pages, 2)
      const other = yield* trackedRepository(org.id)
      assert.deepStrictEqual((yield* store.remediations.list(org.id, other.id, { limit: 50 })).items, [], "per repository")

      const withNul = remediation(repo.id, "main")
      yield* store.remediations.put(org.id, {
        ...withNul,
        url: "https://git.example/pr/1\u0000",
        changes: [{ ...withNul.changes[0]!, from: "nginx:\u00001" }]
      })
      const storedNul = Option.getOrThrow(yield* store.remediations.get(org.id, withNul.id))
      assert.strictEqual(storedNul.changes[0]!.from, "nginx:\uFFFD1")
      assert.strictEqual(storedNul.url, "https://git.example/pr/1\uFFFD", "the provider's URL too")
    }))

  it.effect("remediation requests: findByNumber answers the repository's newest request of that number that is not a failed attempt", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const other = yield* trackedRepository(org.id)
      const older: Remediation.RemediationRequest = { ...remediation(repo.id, "main", "superseded"), number: 41 }
      const newer: Remediation.RemediationRequest = { ...remediation(repo.id, "release"), number: 41 }
      const failed: Remediation.RemediationRequest = {
        ...remediation(repo.id, "main", "failed"),
        failure: "conflict",
        number: 41,
        url: null
      }
      const elsewhere: Remediation.RemediationRequest = { ...remediation(other.id, "main"), number: 42 }
      for (const r of [older, newer, failed, elsewhere]) yield* store.remediations.put(org.id, r)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.findByNumber(org.id, repo.id, 41)), newer)
      assert.isTrue(Option.isNone(yield* store.remediations.findByNumber(org.id, repo.id, 42)), "per repository")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.findByNumber(org.id, other.id, 42)), elsewhere)
      assert.isTrue(Option.isNone(yield* store.remediations.findByNumber(org.id, repo.id, 7)))
      const stranger = yield* newOrg()
      assert.isTrue(Option.isNone(yield* store.remediations.findByNumber(stranger.id, repo.id, 41)), "scoped by organization")

      // merged: its number and merge time are kept, it is still found, and closing leaves it merged
      const merged: Remediation.RemediationRequest = {
        ...newer,
        status: "merged",
        mergedAt: "2026-05-01T10:00:00.000Z",
        updatedAt: stamp()
      }
      yield* store.remediations.put(org.id, merged)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.findByNumber(org.id, repo.id, 41)), merged)
      assert.strictEqual(yield* store.remediations.close(org.id, repo.id, { at: stamp() }), 2, "the superseded and the failed one")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, merged.id)), merged)
      assert.strictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, older.id)).status, "closed")
    }))

  it.effect("repositories: findByFullName answers the connection's repositories of that name, ignoring case", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const t = team("Platform")
      const r = routine(t.id)
      const c = connection()
      const d = connection()
      for (const x of [c, d]) yield* store.vcsConnections.insert(org.id, x, null)
      const api = { ...repository(c.id, "2001", t.id, r.id), fullName: "Acme/API" }
      const web = { ...repository(c.id, "2002", t.id, r.id), fullName: "acme/web" }
      const sameNameOtherConnection = { ...repository(d.id, "2001", t.id, r.id), fullName: "acme/api" }
      for (const x of [api, web, sameNameOtherConnection]) yield* store.repositories.insert(org.id, x)
      assert.deepStrictEqual(yield* store.repositories.findByFullName(org.id, c.id, "acme/api"), [api])
      assert.deepStrictEqual(yield* store.repositories.findByFullName(org.id, c.id, "ACME/WEB"), [web])
      assert.deepStrictEqual(yield* store.repositories.findByFullName(org.id, d.id, "Acme/Api"), [sameNameOtherConnection])
      assert.deepStrictEqual(yield* store.repositories.findByFullName(org.id, c.id, "acme/ap"), [])
      const stranger = yield* newOrg()
      assert.deepStrictEqual(yield* store.repositories.findByFullName(stranger.id, c.id, "acme/api"), [], "scoped by organization")
    }))
}
