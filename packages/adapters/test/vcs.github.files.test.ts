/** The GitHub client's branch file lists (listFiles): git trees, truncated ones walked directory by directory. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import { effectProp } from "../../core/test/support/fcProp.js"
import * as GitHub from "../src/vcs/GitHub.js"
import { clientOf, errorOf, token } from "./support/github.js"
import * as Stubs from "./support/providerStubs.js"

describe("GitHub branch files (listFiles)", () => {
  const sorted = (paths: ReadonlyArray<string>) => [...paths].sort()

  it.effect("lists every file of the branch head in two requests; directories, symlinks and submodules are not files", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", {
        branches: ["main", "feature/x"],
        files: {
          main: {
            "Dockerfile": "FROM node:20\n",
            "deploy/api/Dockerfile": "FROM node:20\n",
            "deploy/worker/docker-compose.yml": "services: {}\n",
            "scripts/build.sh": "#!/bin/sh\n",
            "docs/ü ñ.md": "✓\n",
            "current": "deploy/api",
            "vendor/lib": "0123456789abcdef"
          },
          "feature/x": { "Dockerfile": "FROM node:22\n" }
        },
        modes: { "scripts/build.sh": "100755", "current": "120000", "vendor/lib": "160000" }
      })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const client = clientOf(stub.baseUrl)
      const tree = yield* GitHub.listFiles(client, { fullName: "acme/api", branch: "main" })
      assert.strictEqual(tree.commitSha, repo.branches.get("main"))
      assert.deepStrictEqual(sorted(tree.paths), [
        "Dockerfile",
        "deploy/api/Dockerfile",
        "deploy/worker/docker-compose.yml",
        "docs/ü ñ.md",
        "scripts/build.sh"
      ])
      assert.deepStrictEqual(stub.requests.map((r) => r.url), [
        "/api/v3/repos/acme/api/git/ref/heads/main",
        `/api/v3/repos/acme/api/git/trees/${repo.branches.get("main")}?recursive=1`
      ])

      const feature = yield* GitHub.listFiles(client, { fullName: "acme/api", branch: "feature/x" })
      assert.deepStrictEqual(feature, { commitSha: repo.branches.get("feature/x")!, paths: ["Dockerfile"] })
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "nope" }))).reason, "not-found")
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/nope", branch: "main" }))).reason, "not-found")
    }))

  it.effect("a truncated tree is walked subtree by subtree: no path is missed or repeated", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 0; i < 5; i++) files[`root-${i}.txt`] = `r${i}`
      for (const dir of ["apps/web", "apps/api/src", "apps/api/deploy", "infra", "infra/k8s/base"]) {
        for (let i = 0; i < 6; i++) files[`${dir}/file-${i}.yaml`] = `${dir}${i}`
      }
      const repo = Stubs.repository(7, "acme/mono", { files: { main: files } })
      const stub = yield* Stubs.github({ token, repositories: [repo], truncateTreesOver: 8 })
      const tree = yield* GitHub.listFiles(clientOf(stub.baseUrl), { fullName: "acme/mono", branch: "main" })
      assert.deepStrictEqual(sorted(tree.paths), sorted(Object.keys(files)))
      assert.strictEqual(new Set(tree.paths).size, tree.paths.length)
      // the root was truncated, so it was read again without recursion and its subtrees walked
      assert.isAbove(stub.requests.filter((r) => r.path.includes("/git/trees/")).length, 3)
    }))

  effectProp(
    "whatever the tree and the truncation limit, the listed paths are exactly the branch's files",
    [
      fc.uniqueArray(
        fc.array(fc.constantFrom("a", "b", "c", "d.txt", "Dockerfile"), { minLength: 1, maxLength: 4 }).map((s) => s.join("/")),
        {
          minLength: 1,
          maxLength: 30
        }
      ),
      fc.integer({ min: 1, max: 12 })
    ],
    ([candidates, limit]) =>
      Effect.scoped(Effect.gen(function*() {
        // a path cannot be both a file and a directory
        const paths = candidates.filter((p) => !candidates.some((q) => q.startsWith(`${p}/`)))
        const repo = Stubs.repository(7, "acme/any", { files: { main: Object.fromEntries(paths.map((p) => [p, p])) } })
        const stub = yield* Stubs.github({ token, repositories: [repo], truncateTreesOver: limit })
        const tree = yield* GitHub.listFiles(clientOf(stub.baseUrl), { fullName: "acme/any", branch: "main" })
        assert.deepStrictEqual(sorted(tree.paths), sorted(paths))
      })),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect("a single directory too large to list is unavailable; a rate limit is rate-limited", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "a/b": "x", "c": "y" } } })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const client = clientOf(stub.baseUrl)
      stub.setOverride((r) =>
        r.path.includes("/git/trees/") ? { status: 200, body: { sha: Stubs.sha1("t"), tree: [], truncated: true } } : undefined
      )
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")
      stub.setOverride(undefined)
      stub.failNext({ status: 429, headers: { "retry-after": "20" } })
      const limited = yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))
      assert.deepStrictEqual([limited.reason, limited.retryAfterSeconds], ["rate-limited", 20])
    }))
})
