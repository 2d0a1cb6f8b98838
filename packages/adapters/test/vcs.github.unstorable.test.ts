/** The GitHub client refuses answers no store can hold (bad shas, NUL bytes, lone surrogates) as a typed error. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GitHub from "../src/vcs/GitHub.js"
import { api, clientOf, errorOf, token } from "./support/github.js"
import * as Stubs from "./support/providerStubs.js"

/** Object ids that are not a git object id as GitHub spells it (lowercase hex, 40 or 64 digits). */
const badShas = [
  "",
  "not-a-sha",
  `${"a".repeat(39)}\u0000`,
  `${"a".repeat(40)}\u0000`,
  "A".repeat(40),
  "a".repeat(39),
  "a".repeat(41),
  `${"a".repeat(39)}\ud800`
]

describe("GitHub answers no store can hold", () => {
  it.effect("a blob, tree or commit sha that is not lowercase hex is unavailable (it would be stored and compared as is)", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const client = clientOf(stub.baseUrl)
      const content = Buffer.from("FROM node:20\n").toString("base64")
      for (const sha of badShas) {
        stub.setOverride((r) =>
          r.path.includes("/contents/") ? { status: 200, body: { type: "file", sha, encoding: "base64", content } } : undefined
        )
        assert.strictEqual(
          (yield* errorOf(GitHub.readFile(client, { fullName: "acme/api", branch: "main", path: "Dockerfile" }))).reason,
          "unavailable",
          JSON.stringify(sha)
        )

        stub.setOverride((r) =>
          r.path.includes("/git/ref/heads/") ? { status: 200, body: { ref: "refs/heads/main", object: { sha } } } : undefined
        )
        assert.strictEqual((yield* errorOf(GitHub.branchHead(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")
        assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")

        // a tree entry's sha (a subtree is walked by it, a file's is compared with its version)
        stub.setOverride((r) =>
          r.path.includes("/git/trees/")
            ? {
              status: 200,
              body: { sha: Stubs.sha1("root"), tree: [{ path: "Dockerfile", mode: "100644", type: "blob", sha }], truncated: false }
            }
            : undefined
        )
        assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")
      }
      // a SHA-256 repository's ids are 64 digits
      const sha256 = "0123456789abcdef".repeat(4)
      stub.setOverride((r) =>
        r.path.includes("/contents/") ? { status: 200, body: { type: "file", sha: sha256, encoding: "base64", content } } : undefined
      )
      assert.deepStrictEqual(
        yield* GitHub.readFile(client, { fullName: "acme/api", branch: "main", path: "Dockerfile" }),
        Option.some({ content: "FROM node:20\n", version: sha256 })
      )
    }))

  it.effect("a listing leaves out repositories and branches whose names no store can hold, and lists the others", () =>
    Effect.gen(function*() {
      const repos = [
        api,
        Stubs.repository(8, "acme/nul\u0000"),
        Stubs.repository(9, "acme/lone\ud800"),
        Stubs.repository(10, "acme/odd-default", { defaultBranch: "ma\u0000in" }),
        Stubs.repository(11, "acme/long-default", { defaultBranch: "b".repeat(256) }),
        Stubs.repository(12, "acme/branches", { branches: ["main", "nul\u0000", "lone\udc00x", "b".repeat(256), "release"] }),
        Stubs.repository(13, "acme/last")
      ]
      const stub = yield* Stubs.github({ token, repositories: repos, maxPerPage: 3 })
      const client = clientOf(stub.baseUrl)
      const listed = yield* GitHub.listRepositories(client)
      assert.deepStrictEqual(listed.map((r) => r.fullName), ["acme/api", "acme/branches", "acme/last"])
      const branches = yield* GitHub.listBranches(client, { fullName: "acme/branches", defaultBranch: "main" })
      assert.deepStrictEqual(branches, [{ name: "main", isDefault: true }, { name: "release", isDefault: false }])

      // one repository alone: its names must be storable
      assert.strictEqual((yield* errorOf(GitHub.getRepository(client, "acme/odd-default"))).reason, "unavailable")
      // an entry of another shape is a malformed answer, not a name to leave out
      stub.setOverride((r) =>
        r.path === "/user/repos" ? { status: 200, body: [{ id: 1, full_name: "acme/a", default_branch: "main" }, { id: 2 }] } : undefined
      )
      assert.strictEqual((yield* errorOf(GitHub.listRepositories(client))).reason, "unavailable")
    }))

  it.effect("a repository name, branch or file path with a lone surrogate is refused before any request, never a URIError", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const client = clientOf(stub.baseUrl)
      for (const fullName of ["acme/api\ud800", "\udc00/api", "acme/a\u0000"]) {
        assert.strictEqual((yield* errorOf(GitHub.getRepository(client, fullName))).reason, "not-found")
        assert.strictEqual((yield* errorOf(GitHub.listBranches(client, { fullName }))).reason, "not-found")
        assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName, branch: "main" }))).reason, "not-found")
      }
      assert.isTrue(Option.isNone(yield* GitHub.readFile(client, { fullName: "acme/api", branch: "main", path: "docs/a\ud800.md" })))
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "feature/\ud800" }))).reason, "not-found")
      const invalid = yield* Effect.flip(GitHub.openRemediation(client, {
        fullName: "acme/api",
        baseBranch: "main",
        headBranch: "image-policy/\ud800",
        title: "t",
        body: "b",
        commitMessage: "m",
        files: [{ path: "Dockerfile", content: "x", previousVersion: Stubs.gitBlobSha("FROM node:20\n") }]
      }))
      assert.deepStrictEqual(invalid._tag === "VcsWriteRejected" ? invalid.reason : invalid._tag, "invalid")
      assert.strictEqual(stub.requests.length, 0)
    }))

  it.effect("tree entries whose path no store can hold are left out (recursive or walked), the others listed", () =>
    Effect.gen(function*() {
      const files = {
        "Dockerfile": "FROM node:20\n",
        "lone\ud800.yaml": "a",
        "nul\u0000/Dockerfile": "b",
        "apps/web/Dockerfile": "c",
        "apps/lone\udc00/Dockerfile": "d",
        "apps/api/compose.yaml": "e"
      }
      const repo = Stubs.repository(7, "acme/api", { files: { main: files } })
      for (const truncateTreesOver of [undefined, 2]) {
        const stub = yield* Stubs.github({ token, repositories: [repo], ...(truncateTreesOver === undefined ? {} : { truncateTreesOver }) })
        const tree = yield* GitHub.listFiles(clientOf(stub.baseUrl), { fullName: "acme/api", branch: "main" })
        assert.deepStrictEqual([...tree.paths].sort(), ["Dockerfile", "apps/api/compose.yaml", "apps/web/Dockerfile"])
      }
    }))
})
