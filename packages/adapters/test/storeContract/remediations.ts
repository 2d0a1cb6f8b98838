/** Storage contract: remediation requests (`RemediationStore`). */
import { assert } from "@effect/vitest"
import type { Remediation } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, stamp } from "./support.js"

export const remediations = (it: ContractIt, { store, newOrg, remediation, trackedRepository }: Contract) => {
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
}
