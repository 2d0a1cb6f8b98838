/**
 * The fixture provider (Fixture.ts) as seeds, demos and the host's tests use it: a branch's file
 * list with a commit sha that follows its files, and remediation requests kept in memory (opened,
 * then updated rather than duplicated; head branch = base + changes; conflicts; injected failures).
 */
import { assert, describe, it } from "@effect/vitest"
import { type ConnectionContext, type RemediationWrite, VcsProviderError, VcsWriteRejected } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import { effectProp } from "../../core/test/support/fcProp.js"
import * as Fixture from "../src/vcs/Fixture.js"
import { gitBlobSha } from "./support/providerStubs.js"

const files = { "Dockerfile": "FROM node:20\n", "deploy/Dockerfile": "FROM nginx:1.25\r\n", "README.md": "# api\n" }

const contextOf = (options: { readonly orgId?: string; readonly connectionId?: string } = {}): ConnectionContext => ({
  orgId: (options.orgId ?? "org_01hzzzzzzzzzzzzzzzzzzzzzzz") as ConnectionContext["orgId"],
  connection: {
    id: (options.connectionId ?? "vcs_01hzzzzzzzzzzzzzzzzzzzzzzz") as ConnectionContext["connection"]["id"],
    provider: "github",
    externalAccountName: "acme",
    status: "active"
  },
  settings: {
    kind: "fixture",
    repositories: [
      {
        externalRepoId: "1",
        fullName: "acme/api",
        defaultBranch: "main",
        branches: ["main", "release"],
        files: { main: files, release: { "Dockerfile": "FROM node:18\n" } }
      },
      { externalRepoId: "2", fullName: "acme/web", defaultBranch: "main", branches: ["main"] }
    ]
  }
})
const ctx = contextOf()
const at = (branch: string, path: string, fullName = "acme/api") => ({
  orgId: ctx.orgId,
  vcsConnectionId: ctx.connection.id,
  fullName,
  branch,
  path
})

const write = (overrides: Partial<RemediationWrite> = {}): RemediationWrite => ({
  fullName: "acme/api",
  baseBranch: "main",
  headBranch: "image-policy/remediate/main",
  title: "Update container images on main",
  body: "- Dockerfile:1 node:20 -> node:22",
  commitMessage: "Update container images on main",
  files: [{ path: "Dockerfile", content: "FROM node:22\n", previousVersion: gitBlobSha(files["Dockerfile"]) }],
  ...overrides
})

describe("fixture listFiles", () => {
  it.effect("lists the branch's files, sorted, with a commit sha that changes when a file does and is the same for the same files", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      const vcs = fixture.provider
      const first = yield* vcs.listFiles(ctx, { fullName: "acme/api", branch: "main" })
      assert.deepStrictEqual(first.paths, ["Dockerfile", "README.md", "deploy/Dockerfile"])
      assert.match(first.commitSha, /^[0-9a-f]{40}$/)
      assert.strictEqual(
        (yield* Fixture.make().provider.listFiles(ctx, { fullName: "acme/api", branch: "main" })).commitSha,
        first.commitSha
      )
      const release = yield* vcs.listFiles(ctx, { fullName: "acme/api", branch: "release" })
      assert.deepStrictEqual(release.paths, ["Dockerfile"])
      assert.notStrictEqual(release.commitSha, first.commitSha)
      assert.deepStrictEqual((yield* vcs.listFiles(ctx, { fullName: "acme/web", branch: "main" })).paths, [])

      fixture.files.setFile(at("main", "Dockerfile"), "FROM node:21\n")
      const changed = yield* vcs.listFiles(ctx, { fullName: "acme/api", branch: "main" })
      assert.deepStrictEqual(changed.paths, first.paths)
      assert.notStrictEqual(changed.commitSha, first.commitSha)

      fixture.files.setFile(at("main", "services/a/Dockerfile"), "FROM a\n")
      fixture.files.setFile(at("main", "README.md"), null)
      const moved = yield* vcs.listFiles(ctx, { fullName: "acme/api", branch: "main" })
      assert.deepStrictEqual(moved.paths, ["Dockerfile", "deploy/Dockerfile", "services/a/Dockerfile"])
      assert.strictEqual(
        Option.getOrThrow(yield* vcs.readFile(ctx, { fullName: "acme/api", branch: "main", path: "services/a/Dockerfile" })).content,
        "FROM a\n"
      )
      // a read at a listed commit sees that commit's files, whatever the branch holds now
      const read = (branch: string, path: string) =>
        Effect.map(vcs.readFile(ctx, { fullName: "acme/api", branch, path }), Option.map((f) => f.content))
      assert.deepStrictEqual(yield* read(first.commitSha, "Dockerfile"), Option.some("FROM node:20\n"))
      assert.deepStrictEqual(yield* read(first.commitSha, "README.md"), Option.some("# api\n"))
      assert.deepStrictEqual(yield* read(first.commitSha, "services/a/Dockerfile"), Option.none())
      assert.deepStrictEqual(yield* read(moved.commitSha, "Dockerfile"), Option.some("FROM node:21\n"))

      // another org's connection sees its own files
      assert.deepStrictEqual(yield* vcs.listFiles(contextOf({ orgId: "org_other" }), { fullName: "acme/api", branch: "main" }), first)
    }))

  it.effect("an unknown branch or repository is not-found; settings that are not fixture data are not-configured", () =>
    Effect.gen(function*() {
      const vcs = Fixture.make().provider
      assert.strictEqual((yield* Effect.flip(vcs.listFiles(ctx, { fullName: "acme/api", branch: "nope" }))).reason, "not-found")
      assert.strictEqual((yield* Effect.flip(vcs.listFiles(ctx, { fullName: "acme/nope", branch: "main" }))).reason, "not-found")
      assert.strictEqual(
        (yield* Effect.flip(vcs.listFiles({ ...ctx, settings: { kind: "api" } }, { fullName: "acme/api", branch: "main" }))).reason,
        "not-configured"
      )
    }))
})

describe("fixture remediation requests", () => {
  it.effect("opens a request, makes the head branch the base plus the files, and records what was asked", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      const vcs = fixture.provider
      const opened = yield* vcs.openRemediation(ctx, write())
      assert.deepStrictEqual(opened, { number: 1, url: "https://fixture.invalid/acme/api/pull/1", created: true })
      assert.deepStrictEqual(fixture.remediations("acme/api"), [{
        orgId: ctx.orgId,
        vcsConnectionId: ctx.connection.id,
        fullName: "acme/api",
        number: 1,
        url: "https://fixture.invalid/acme/api/pull/1",
        state: "open",
        title: "Update container images on main",
        body: "- Dockerfile:1 node:20 -> node:22",
        head: "image-policy/remediate/main",
        base: "main",
        commitMessage: "Update container images on main",
        files: [{ path: "Dockerfile", content: "FROM node:22\n" }],
        writes: 1
      }])
      assert.deepStrictEqual(fixture.remediations("acme/web"), [])

      const head = { fullName: "acme/api", branch: "image-policy/remediate/main" }
      assert.deepStrictEqual((yield* vcs.listFiles(ctx, head)).paths, ["Dockerfile", "README.md", "deploy/Dockerfile"])
      assert.strictEqual(Option.getOrThrow(yield* vcs.readFile(ctx, { ...head, path: "Dockerfile" })).content, "FROM node:22\n")
      assert.strictEqual(Option.getOrThrow(yield* vcs.readFile(ctx, { ...head, path: "deploy/Dockerfile" })).content, "FROM nginx:1.25\r\n")
      assert.strictEqual(
        Option.getOrThrow(yield* vcs.readFile(ctx, { fullName: "acme/api", branch: "main", path: "Dockerfile" })).content,
        "FROM node:20\n"
      )
      assert.deepStrictEqual(yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" }), [
        { name: "main", isDefault: true },
        { name: "release", isDefault: false },
        { name: "image-policy/remediate/main", isDefault: false }
      ])
    }))

  it.effect("a second call updates the open request instead of opening another; its head branch is the new base plus the new files", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      const vcs = fixture.provider
      yield* vcs.openRemediation(
        ctx,
        write({
          files: [
            { path: "Dockerfile", content: "FROM node:22\n", previousVersion: gitBlobSha(files["Dockerfile"]) },
            { path: "deploy/Dockerfile", content: "FROM nginx:1.27\r\n", previousVersion: gitBlobSha(files["deploy/Dockerfile"]) }
          ]
        })
      )
      fixture.files.setFile(at("main", "README.md"), "# api v2\n")
      const second = yield* vcs.openRemediation(ctx, write({ title: "second", body: "second body" }))
      assert.deepStrictEqual(second, { number: 1, url: "https://fixture.invalid/acme/api/pull/1", created: false })
      const [only, ...rest] = fixture.remediations("acme/api")
      assert.deepStrictEqual(rest, [])
      assert.deepStrictEqual([only!.title, only!.body, only!.writes, only!.files], ["second", "second body", 2, [{
        path: "Dockerfile",
        content: "FROM node:22\n"
      }]])
      const head = (path: string) => vcs.readFile(ctx, { fullName: "acme/api", branch: "image-policy/remediate/main", path })
      assert.strictEqual(Option.getOrThrow(yield* head("README.md")).content, "# api v2\n")
      // the first call's change to deploy/Dockerfile is not in the second request
      assert.strictEqual(Option.getOrThrow(yield* head("deploy/Dockerfile")).content, "FROM nginx:1.25\r\n")
    }))

  effectProp(
    "opening the same request n times equals opening it once (one request, n writes)",
    [fc.integer({ min: 1, max: 8 })],
    ([n]) =>
      Effect.gen(function*() {
        const fixture = Fixture.make()
        const results = yield* Effect.forEach(Array.from({ length: n }), () => fixture.provider.openRemediation(ctx, write()))
        assert.deepStrictEqual(results.map((r) => r.created), [true, ...Array.from({ length: n - 1 }, () => false)])
        assert.deepStrictEqual(fixture.remediations("acme/api").map((r) => [r.number, r.writes]), [[1, n]])
      })
  )

  it.effect("a closed request is not updated: the next call opens a new one with the next number", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      yield* fixture.provider.openRemediation(ctx, write())
      fixture.closeRemediation("acme/api", 1)
      assert.deepStrictEqual(yield* fixture.provider.openRemediation(ctx, write()), {
        number: 2,
        url: "https://fixture.invalid/acme/api/pull/2",
        created: true
      })
      assert.deepStrictEqual(fixture.remediations("acme/api").map((r) => [r.number, r.state]), [[1, "closed"], [2, "open"]])
    }))

  it.effect("a file changed on the base since it was read (or gone) is a conflict, and nothing is written", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      fixture.files.setFile(at("main", "Dockerfile"), "FROM node:21\n")
      const changed = yield* Effect.flip(fixture.provider.openRemediation(ctx, write()))
      assert.instanceOf(changed, VcsWriteRejected)
      assert.deepStrictEqual(changed._tag === "VcsWriteRejected" ? [changed.reason, changed.status] : [], ["conflict", 409])
      fixture.files.setFile(at("main", "Dockerfile"), null)
      const gone = yield* Effect.flip(fixture.provider.openRemediation(ctx, write()))
      assert.deepStrictEqual(gone._tag === "VcsWriteRejected" ? gone.reason : gone._tag, "conflict")
      assert.deepStrictEqual(fixture.remediations("acme/api"), [])
      assert.strictEqual(
        (yield* Effect.flip(fixture.provider.listFiles(ctx, { fullName: "acme/api", branch: "image-policy/remediate/main" }))).reason,
        "not-found"
      )
      const unknownBase = yield* Effect.flip(fixture.provider.openRemediation(ctx, write({ baseBranch: "nope" })))
      assert.deepStrictEqual(unknownBase._tag === "VcsProviderError" ? unknownBase.reason : unknownBase._tag, "not-found")
    }))

  it.effect("failNextWrite makes exactly the next call fail with that reason, writing nothing", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      const expected: ReadonlyArray<readonly [Fixture.FixtureWriteFailure, string, unknown]> = [
        ["conflict", "VcsWriteRejected", 409],
        ["forbidden", "VcsWriteRejected", 403],
        ["invalid", "VcsWriteRejected", 422],
        ["rate-limited", "VcsProviderError", 60],
        ["unauthorized", "VcsProviderError", undefined],
        ["unavailable", "VcsProviderError", undefined]
      ]
      for (const [reason] of expected) fixture.failNextWrite(reason)
      for (const [reason, tag, detail] of expected) {
        const error = yield* Effect.flip(fixture.provider.openRemediation(ctx, write()))
        assert.strictEqual(error._tag, tag)
        assert.strictEqual(error.reason, reason)
        assert.strictEqual(error instanceof VcsWriteRejected ? error.status : (error as VcsProviderError).retryAfterSeconds, detail)
      }
      assert.deepStrictEqual(fixture.remediations("acme/api"), [])
      assert.isTrue((yield* fixture.provider.openRemediation(ctx, write())).created)
      fixture.failNextWrite("not-found")
      assert.instanceOf(yield* Effect.flip(fixture.provider.openRemediation(ctx, write())), VcsProviderError)
      assert.isFalse((yield* fixture.provider.openRemediation(ctx, write())).created)
    }))

  it.effect("remediations returns copies: changing them changes nothing", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      yield* fixture.provider.openRemediation(ctx, write())
      const copy = fixture.remediations("acme/api")
      ;(copy as Array<unknown>).pop()
      assert.strictEqual(fixture.remediations("acme/api").length, 1)
    }))
})
