/**
 * The production `VcsProvider` (Providers.ts): dispatch on the stored settings, and the quota law
 * of spec 4 rule 1 — the provider is contacted for repositories only on `refresh` or when nothing
 * is cached — plus the short branch cache, uncached files and file lists, uncached remediation
 * writes, and the memory of a rate limit until its reset. Time is the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { type RemediationWrite, type VcsProviderError, type VcsWriteRejected } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as fc from "fast-check"
import { effectProp } from "../../core/test/support/fcProp.js"
import * as Providers from "../src/vcs/Providers.js"
import * as Stubs from "./support/providerStubs.js"

import { api, apiSettings, contextOf, env, start, token } from "./support/providers.js"

describe("quota (spec 4 rule 1)", () => {
  it.effect("100 listings cause one provider call; refresh causes exactly one more", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api, Stubs.repository(8, "acme/web")] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))

      const first = yield* vcs.listRepositories(ctx, { refresh: false })
      for (let i = 0; i < 49; i++) assert.deepStrictEqual(yield* vcs.listRepositories(ctx, { refresh: false }), first)
      yield* Effect.all(Array.from({ length: 50 }, () => vcs.listRepositories(ctx, { refresh: false })), { concurrency: "unbounded" })
      assert.strictEqual(stub.count("/user/repos"), 1)
      assert.deepStrictEqual(first.map((r) => r.fullName), ["acme/api", "acme/web"])

      stub.repositories.push(Stubs.repository(9, "acme/new"))
      assert.strictEqual((yield* vcs.listRepositories(ctx, { refresh: false })).length, 2)
      const refreshed = yield* vcs.listRepositories(ctx, { refresh: true })
      assert.deepStrictEqual(refreshed.map((r) => r.fullName), ["acme/api", "acme/web", "acme/new"])
      assert.strictEqual(stub.count("/user/repos"), 2)
      for (let i = 0; i < 100; i++) yield* vcs.listRepositories(ctx, { refresh: false })
      assert.strictEqual(stub.count("/user/repos"), 2)
      assert.strictEqual((yield* vcs.listRepositories(ctx, { refresh: false })).length, 3)
    }))

  it.effect("concurrent first listings wait for one provider answer", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: Stubs.manyRepositories(150) })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))
      const all = yield* Effect.all(Array.from({ length: 100 }, () => vcs.listRepositories(ctx, { refresh: false })), {
        concurrency: "unbounded"
      })
      assert.isTrue(all.every((listed) => listed.length === 150))
      // two pages, once
      assert.strictEqual(stub.count("/user/repos"), 2)
    }))

  effectProp(
    "provider calls = refreshes + 1 when the first listing is not a refresh",
    [fc.array(fc.boolean(), { minLength: 1, maxLength: 25 })],
    ([refreshes]) =>
      Effect.scoped(Effect.gen(function*() {
        const stub = yield* Stubs.gitlab({ token, repositories: [api] })
        const vcs = Providers.make({ env })
        const ctx = contextOf(apiSettings(stub.baseUrl, "GITLAB_TOKEN"), { provider: "gitlab" })
        for (const refresh of refreshes) yield* vcs.listRepositories(ctx, { refresh })
        const expected = refreshes.filter((r) => r).length + (refreshes[0] ? 0 : 1)
        assert.strictEqual(stub.count("/projects"), expected)
      })),
    { fastCheck: { numRuns: 25 } }
  )

  it.effect("each connection has its own cache; a failed listing is not cached", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const vcs = Providers.make({ env })
      const a = contextOf(apiSettings(stub.baseUrl), { connectionId: "vcs_a" })
      const b = contextOf(apiSettings(stub.baseUrl), { connectionId: "vcs_b" })
      const otherOrg = contextOf(apiSettings(stub.baseUrl), { connectionId: "vcs_a", orgId: "org_other" })
      stub.failNext({ status: 500 })
      assert.strictEqual((yield* Effect.flip(vcs.listRepositories(a, { refresh: false }))).reason, "unavailable")
      yield* vcs.listRepositories(a, { refresh: false })
      yield* vcs.listRepositories(a, { refresh: false })
      yield* vcs.listRepositories(b, { refresh: false })
      yield* vcs.listRepositories(otherOrg, { refresh: false })
      assert.strictEqual(stub.count("/user/repos"), 4)
    }))
})

describe("branches and files", () => {
  it.effect("branches are reused for 60 s per repository; GitHub takes the default branch from the listed repositories", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))
      yield* vcs.listRepositories(ctx, { refresh: false })

      // the caller's claim about the default branch does not decide isDefault
      const branches = yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "release" })
      assert.deepStrictEqual(branches, [{ name: "main", isDefault: true }, { name: "release", isDefault: false }])
      assert.strictEqual(stub.count("/repos/acme/api"), 0)
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" }), branches)
      assert.strictEqual(stub.count("/repos/acme/api/branches"), 1)

      api.branches.set("hotfix", "abc")
      yield* TestClock.adjust("2 seconds")
      const later = yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" })
      assert.deepStrictEqual(later.map((b) => b.name), ["main", "release", "hotfix"])
      assert.strictEqual(stub.count("/repos/acme/api/branches"), 2)
      api.branches.delete("hotfix")

      // without listed repositories GitHub is asked for the repository's default branch
      const fresh = Providers.make({ env })
      assert.deepStrictEqual(yield* fresh.listBranches(ctx, { fullName: "acme/api", defaultBranch: "release" }), branches)
      assert.strictEqual(stub.count("/repos/acme/api"), 1)
    }))

  it.effect("files are read from the provider every time (sync needs the head)", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "Dockerfile": "FROM node:20\n" } } })
      const stub = yield* Stubs.gitlab({ token, repositories: [repo] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl, "GITLAB_TOKEN"), { provider: "gitlab" })
      const file = { fullName: "acme/api", branch: "main", path: "Dockerfile" }
      const first = yield* vcs.readFile(ctx, file)
      assert.deepStrictEqual(first, Option.some({ content: "FROM node:20\n", version: Stubs.gitBlobSha("FROM node:20\n") }))
      repo.files.get("main")!.set("Dockerfile", "FROM node:22\n")
      const second = yield* vcs.readFile(ctx, file)
      assert.deepStrictEqual(second, Option.some({ content: "FROM node:22\n", version: Stubs.gitBlobSha("FROM node:22\n") }))
      assert.isTrue(Option.isNone(yield* vcs.readFile(ctx, { ...file, path: "missing" })))
      assert.strictEqual(stub.requests.length, 3)
    }))

  it.effect("file lists are read from the provider every time (a scan needs the head)", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "Dockerfile": "FROM node:20\n" } } })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))
      const at = { fullName: "acme/api", branch: "main" }
      assert.deepStrictEqual(yield* vcs.listFiles(ctx, at), { commitSha: repo.branches.get("main")!, paths: ["Dockerfile"] })
      repo.files.get("main")!.set("deploy/Dockerfile", "FROM nginx\n")
      repo.branches.set("main", Stubs.sha1("next"))
      assert.deepStrictEqual(yield* vcs.listFiles(ctx, at), { commitSha: Stubs.sha1("next"), paths: ["Dockerfile", "deploy/Dockerfile"] })
      assert.strictEqual(stub.requests.length, 4)
    }))
})

describe("remediation through the production provider", () => {
  const write = (fullName: string, previous: string): RemediationWrite => ({
    fullName,
    baseBranch: "main",
    headBranch: "image-policy/remediate/main",
    title: "Update container images on main",
    body: "body",
    commitMessage: "Update container images on main",
    files: [{ path: "Dockerfile", content: "FROM node:22\n", previousVersion: Stubs.gitBlobSha(previous) }]
  })

  it.effect("is never cached: each call writes; the repository's branch list is read again afterwards (the head branch is new)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "Dockerfile": "FROM node:20\n" } } })
      const stub = yield* Stubs.gitlab({ token, repositories: [repo] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl, "GITLAB_TOKEN"), { provider: "gitlab" })
      assert.deepStrictEqual((yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" })).map((b) => b.name), ["main"])
      assert.deepStrictEqual(yield* vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n")), {
        number: 7,
        url: "https://gitlab.example/acme/api/-/merge_requests/7",
        created: true
      })
      assert.deepStrictEqual(yield* vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n")), {
        number: 7,
        url: "https://gitlab.example/acme/api/-/merge_requests/7",
        created: false
      })
      assert.strictEqual(stub.count("/projects/acme%2Fapi/repository/commits", "POST"), 2)
      const branches = yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" })
      assert.deepStrictEqual(branches.map((b) => b.name), ["main", "image-policy/remediate/main"])
      assert.strictEqual(stub.count("/projects/acme%2Fapi/repository/branches"), 2)
    }))

  it.effect("a rate-limited write is remembered for every call on the token, and a remembered limit refuses writes and file lists at once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "Dockerfile": "FROM node:20\n" } } })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))
      stub.setOverride((r) =>
        r.method === "POST" && r.path.endsWith("/pulls") ? { status: 429, headers: { "retry-after": "90" } } : undefined
      )
      const limited = yield* Effect.flip(vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n")))
      assert.deepStrictEqual(limited._tag === "VcsProviderError" ? [limited.reason, limited.retryAfterSeconds] : [limited._tag], [
        "rate-limited",
        90
      ])
      stub.setOverride(undefined)
      const sent = stub.requests.length
      yield* TestClock.adjust("30 seconds")
      for (
        const call of [
          vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n")),
          vcs.listFiles(ctx, { fullName: "acme/api", branch: "main" })
        ] as const
      ) {
        const error = yield* Effect.flip(call as Effect.Effect<unknown, VcsProviderError | VcsWriteRejected>)
        assert.deepStrictEqual(error._tag === "VcsProviderError" ? [error.reason, error.retryAfterSeconds] : [error._tag], [
          "rate-limited",
          60
        ])
      }
      assert.strictEqual(stub.requests.length, sent)
      yield* TestClock.adjust("60 seconds")
      const opened = yield* vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n"))
      assert.deepStrictEqual(opened, { number: 42, url: "https://github.example/acme/api/pull/42", created: true })
    }))

  it.effect("a refused write (forbidden, conflict) is not a rate limit: the next call goes through", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "Dockerfile": "FROM node:20\n" } } })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))
      stub.setOverride((r) =>
        r.method === "POST" ? { status: 403, body: { message: "Resource not accessible by integration" } } : undefined
      )
      const forbidden = yield* Effect.flip(vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n")))
      assert.deepStrictEqual(forbidden._tag === "VcsWriteRejected" ? forbidden.reason : forbidden._tag, "forbidden")
      stub.setOverride(undefined)
      const conflict = yield* Effect.flip(vcs.openRemediation(ctx, write("acme/api", "FROM node:18\n")))
      assert.deepStrictEqual(conflict._tag === "VcsWriteRejected" ? conflict.reason : conflict._tag, "conflict")
      assert.isTrue((yield* vcs.openRemediation(ctx, write("acme/api", "FROM node:20\n"))).created)
    }))
})

describe("rate limits are remembered until their reset", () => {
  it.effect("after a 403 with x-ratelimit-reset every provider call fails at once with the remaining seconds; cached repositories still answer", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const vcs = Providers.make({ env })
      const ctx = contextOf(apiSettings(stub.baseUrl))
      const cached = yield* vcs.listRepositories(ctx, { refresh: false })

      stub.failNext({
        status: 403,
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(start / 1000) + 120) },
        body: { message: "API rate limit exceeded for user ID 1." }
      })
      const limited = yield* Effect.flip(vcs.listRepositories(ctx, { refresh: true }))
      assert.deepStrictEqual([limited.reason, limited.retryAfterSeconds], ["rate-limited", 120])
      const sent = stub.requests.length

      yield* TestClock.adjust("50 seconds")
      for (
        const call of [
          vcs.listRepositories(ctx, { refresh: true }),
          vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" }),
          vcs.readFile(ctx, { fullName: "acme/api", branch: "main", path: "Dockerfile" }),
          // another connection on the same token and host shares the quota
          vcs.listRepositories(contextOf(apiSettings(stub.baseUrl), { connectionId: "vcs_other", orgId: "org_other" }), { refresh: false })
        ] as const
      ) {
        const error = yield* Effect.flip(call as Effect.Effect<unknown, typeof limited>)
        assert.deepStrictEqual([error.reason, error.retryAfterSeconds], ["rate-limited", 70])
      }
      assert.deepStrictEqual(yield* vcs.listRepositories(ctx, { refresh: false }), cached)
      assert.strictEqual(stub.requests.length, sent)

      yield* TestClock.adjust("70 seconds")
      yield* vcs.listRepositories(ctx, { refresh: true })
      assert.strictEqual(stub.requests.length, sent + 1)
    }))

  it.effect("a 429 with retry-after is remembered for that many seconds; other tokens are not affected", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const stub = yield* Stubs.gitlab({ token, repositories: [api] })
      const vcs = Providers.make({ env: (name) => name === "OTHER_TOKEN" ? token : env(name) })
      const ctx = contextOf(apiSettings(stub.baseUrl, "GITLAB_TOKEN"), { provider: "gitlab" })
      stub.failNext({ status: 429, headers: { "retry-after": "30" } })
      assert.strictEqual((yield* Effect.flip(vcs.listRepositories(ctx, { refresh: false }))).retryAfterSeconds, 30)
      yield* TestClock.adjust("29 seconds")
      assert.strictEqual((yield* Effect.flip(vcs.listRepositories(ctx, { refresh: false }))).retryAfterSeconds, 1)
      const other = contextOf(apiSettings(stub.baseUrl, "OTHER_TOKEN"), { provider: "gitlab", connectionId: "vcs_other" })
      assert.strictEqual((yield* vcs.listRepositories(other, { refresh: false })).length, 1)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* vcs.listRepositories(ctx, { refresh: false })).length, 1)
      assert.strictEqual(stub.count("/projects"), 3)
    }))
})
