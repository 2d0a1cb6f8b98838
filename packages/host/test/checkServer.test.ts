/**
 * `image-policy check --server` (issue 18; docs/cli.md#check): the same fixtures tree checked
 * against a host whose published policy holds the fixtures' mappings file gives the offline
 * check's decisions, finding by finding; and every way the server cannot answer is exit 2 with the
 * reason on stderr, never the API key.
 */
import { FixtureVcs } from "@image-policy/adapters"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "./support/build.js"
import { run } from "./support/cli.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { expectJson } from "./support/suites.js"

const fixtures = fileURLToPath(new URL("./fixtures/check/", import.meta.url))
const tree = join(fixtures, "tree")
const mappingsFile = join(fixtures, "service-mappings.json")

describe("image-policy check --server", () => {
  let host: TestHost | undefined
  beforeAll(async () => {
    await ensureBuilt()
    // the fixtures' mappings file (wildcards and all) as the external phase of a group that applies
    // to every repository, synced without cooldown: the same policy, published on the server
    const fixture = FixtureVcs.make()
    host = await startTestHost({ vcs: { fixture: fixture.provider } })
    const org = host.org
    const group = org.policyGroups["Base images"]!
    fixture.files.setFile({
      orgId: org.id,
      vcsConnectionId: org.vcsConnections["acme"]!,
      fullName: "acme/policy",
      branch: "main",
      path: "service-mappings.json"
    }, readFileSync(mappingsFile, "utf8"))
    const groupPath = `/api/v1/org/${org.id}/policy-groups/${group.id}`
    expectJson(await host.request("PATCH", groupPath, { body: { applyToAllRepos: true, cooldownSeconds: 0 } }), 200)
    expectJson(await host.request("POST", `${groupPath}/phases/${group.phases["From repo"]}/sync`), 200)
  }, 600_000)
  afterAll(async () => {
    await host?.stop()
  })

  const check = (args: ReadonlyArray<string>, key: string | null = secrets.readOnly) =>
    run(["check", ...args], key === null ? {} : { IMAGE_POLICY_API_KEY: key }, "", tree)
  const server = () => ["--server", host!.url, "--org", host!.org.id]
  /** What a user compares: where, the verdict, and what replaces what. */
  const verdicts = (json: string) =>
    (JSON.parse(json).findings as Array<any>).map((f) => ({
      at: `${f.file}:${f.line}:${f.column}`,
      status: f.status,
      toImage: f.decision?.resolution?.toImage ?? null,
      fromImage: f.decision?.resolution?.fromImage ?? null
    }))

  it("decides as the offline check does against the same mappings, published on the server", async () => {
    const offline = await check(["--mappings", mappingsFile, "--format", "json", "."], null)
    const online = await check([...server(), "--format", "json", "."])
    expect(online.stderr).toBe("image-policy: 15 findings out of policy\n")
    expect(online.code).toBe(offline.code)
    expect(JSON.parse(online.stdout).summary).toEqual(JSON.parse(offline.stdout).summary)
    expect(verdicts(online.stdout)).toEqual(verdicts(offline.stdout))
    // the server's ids: the published mapping's, in the organization's group
    const decided = (JSON.parse(online.stdout).findings as Array<any>).find((f) => f.status === "out-of-policy")
    expect(decided.decision.resolution.policyGroupId).toBe(host!.org.policyGroups["Base images"]!.id)
  }, 300_000)

  it("exit 2 with the reason when the server cannot answer, and the key never printed", async () => {
    const noKey = await check([...server(), "."], null)
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain("IMAGE_POLICY_API_KEY")
    const noOrg = await check(["--server", host!.url, "."])
    expect(noOrg.code).toBe(2)
    expect(noOrg.stderr).toContain("--org")
    const both = await check([...server(), "--mappings", mappingsFile, "."])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain("not both")

    const wrongKey = "ipk_not-a-key-0123456789abcdefghijklmnopq"
    const refused = await check([...server(), "."], wrongKey)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("answered 401")
    const otherOrg = await check(["--server", host!.url, "--org", "org_globex", "."])
    expect(otherOrg.code).toBe(2)
    expect(otherOrg.stderr).toContain("answered 404")
    const unknownRepository = await check([...server(), "--repository", `repo_${"0".repeat(26)}`, "."])
    expect(unknownRepository.code).toBe(2)
    expect(unknownRepository.stderr).toContain("no repository")
    const unreachable = await check(["--server", "http://127.0.0.1:9", "--org", "org_acme", "."])
    expect(unreachable.code).toBe(2)
    expect(unreachable.stderr).toContain("cannot reach")
    for (const r of [noKey, noOrg, both, refused, otherOrg, unknownRepository, unreachable]) {
      expect(r.stdout).toBe("")
      expect(r.stderr).not.toContain(secrets.readOnly)
      expect(r.stderr).not.toContain(wrongKey)
    }
  }, 300_000)
})
