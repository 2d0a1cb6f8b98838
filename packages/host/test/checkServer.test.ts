/**
 * `image-policy check --server` (issue 18; docs/cli.md#check): the same fixtures tree checked
 * against a host whose published policy holds the fixtures' mappings file gives the offline
 * check's decisions, finding by finding; and every way the server cannot answer is exit 2 with the
 * reason on stderr, never the API key.
 */
import { FixtureVcs } from "@image-policy/adapters"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, root } from "./support/build.js"
import { run } from "./support/cli.js"
import { goldenIn } from "./support/golden.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { applyToEveryRepository, publishMappingsFile } from "./support/mappingsPhase.js"
import { expectJson } from "./support/suites.js"

const fixtures = fileURLToPath(new URL("./fixtures/check/", import.meta.url))
const tree = join(fixtures, "tree")
const mappingsFile = join(fixtures, "service-mappings.json")
const expected = join(fixtures, "expected", "server-snoozed")
const version = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")).version as string

/** The report files under expected/server-snoozed (`UPDATE_GOLDEN=1` rewrites them, as for check.test.ts). */
const golden = goldenIn(expected)

describe("image-policy check --server", () => {
  let host: TestHost | undefined
  beforeAll(async () => {
    await ensureBuilt()
    // the fixtures' mappings file (wildcards and all) as the external phase of a group that applies
    // to every repository, synced without cooldown: the same policy, published on the server
    const fixture = FixtureVcs.make()
    host = await startTestHost({ vcs: { fixture: fixture.provider } })
    await applyToEveryRepository(host)
    await publishMappingsFile(host, fixture, readFileSync(mappingsFile, "utf8"))
  }, 600_000)
  const dirs: Array<string> = []
  afterAll(async () => {
    await host?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
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

  it("a reference longer than the decision API takes is decided as offline: invalid, not a failure", async () => {
    const dir = mkdtempSync(join(tmpdir(), "image-policy-check-long-"))
    dirs.push(dir)
    writeFileSync(join(dir, "Dockerfile"), `FROM ${"a".repeat(1100)}:1\nFROM redis:7\n`)
    const offline = await run(["check", "--mappings", mappingsFile, "--format", "json", "."], {}, "", dir)
    const online = await run(["check", ...server(), "--format", "json", "."], { IMAGE_POLICY_API_KEY: secrets.readOnly }, "", dir)
    expect(online.stderr).toBe("image-policy: 1 finding out of policy\n")
    expect(online.code).toBe(offline.code)
    expect(verdicts(online.stdout)).toEqual(verdicts(offline.stdout))
    const findings = JSON.parse(online.stdout).findings
    expect(findings[0]).toMatchObject({ status: "invalid", decision: { invalid: { field: "image" } } })
    expect(findings[0].decision).toEqual(JSON.parse(offline.stdout).findings[0].decision)
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
  describe("with a repository's snoozes", () => {
    // snoozed until a fixed instant, so the reports are the same from run to run
    const until = "2099-01-01T00:00:00.000Z"
    let repositoryId = ""
    /** The server's ids in a report, by what they name: they differ from run to run. */
    let names = new Map<string, string>()

    beforeAll(async () => {
      const org = host!.org
      const base = `/api/v1/org/${org.id}`
      const onboarded = await host!.request("POST", `${base}/repositories`, {
        body: {
          vcsConnectionId: org.vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: org.teams["Platform"],
          assignedRoutineId: org.routines["Platform/Weekly"],
          branchNames: ["main"]
        }
      })
      repositoryId = expectJson(onboarded, 201).repository.id
      const snooze = async (fromImage: string, decision: "approve" | "reject" | null) => {
        const created = expectJson(
          await host!.request("POST", `${base}/snooze-requests`, {
            body: { repositoryId, fromImage, reason: `waiting for the ${fromImage} upgrade`, until }
          }),
          201
        )
        if (decision !== null) {
          expectJson(await host!.request("POST", `${base}/snooze-requests/${created.id}/review`, { body: { decision } }), 200)
        }
        return created.id as string
      }
      // approved: redis:7 is the fromImage of two mappings (one for arm64), alpine:3.18 one image a
      // pattern maps (alpine:3.19 stays out of policy), postgres:16 an image already in policy;
      // pending and rejected requests suppress nothing
      const redis = await snooze("redis:7", "approve")
      const alpine = await snooze("alpine:3.18", "approve")
      const postgres = await snooze("postgres:16", "approve")
      await snooze("node:20", null)
      await snooze("docker.io/library/nginx", "reject")

      const group = org.policyGroups["Base images"]!
      const details = expectJson(await host!.request("GET", `${base}/policy-groups/${group.id}/details`), 200)
      names = new Map<string, string>([
        [host!.url, "{{server}}"],
        [repositoryId, "{{repositoryId}}"],
        [group.id, "{{policyGroupId}}"],
        [group.phases["From repo"]!, "{{phaseId}}"],
        [redis, "{{snoozeRequestId:redis:7}}"],
        [alpine, "{{snoozeRequestId:alpine:3.18}}"],
        [postgres, "{{snoozeRequestId:postgres:16}}"],
        ...(details.publishedMappings as Array<any>).map((m): [string, string] => [m.id, `{{mappingId:${m.key}}}`])
      ])
    }, 300_000)

    const normalize = (text: string) => {
      let out = text.replaceAll(`"${version}"`, "\"{{version}}\"")
      for (const [id, name] of names) out = out.replaceAll(id, name)
      // no id of the server is left unnamed
      expect(out).not.toMatch(/\b(?:pg|ph|map|snz|repo)_[0-9a-z]{26}\b/)
      return out
    }
    const checkRepository = (args: ReadonlyArray<string>, cwd = tree) =>
      run(
        ["check", "--server", host!.url, "--org", host!.org.id, "--repository", repositoryId, ...args],
        {
          IMAGE_POLICY_API_KEY: secrets.readOnly
        },
        "",
        cwd
      )

    it("json: the snoozed findings have status snoozed and their snooze; the exit code counts only the others", async () => {
      const r = await checkRepository(["--format", "json", "."])
      golden("report.json", normalize(r.stdout))
      // 15 out of policy without snoozes: redis:7 three times and alpine:3.18 twice are snoozed
      expect(r.stderr).toBe("image-policy: 10 findings out of policy\n")
      expect(r.code).toBe(1)
      const report = JSON.parse(r.stdout)
      expect(report.summary).toEqual({
        files: 7,
        findings: 23,
        outOfPolicy: 10,
        snoozed: 5,
        inPolicy: 2,
        noMapping: 4,
        unresolved: 2,
        invalid: 0
      })
      const at = (place: string) => report.findings.find((f: any) => `${f.file}:${f.line}:${f.column}` === place)
      expect(at("compose.yaml:5:13")).toMatchObject({
        status: "snoozed",
        decision: { resolution: { toImage: "redis:7.4.1-alpine" }, snoozed: { snoozeRequestId: expect.stringMatching(/^snz_/), until } }
      })
      expect(at("services/api/Dockerfile:4:6").status).toBe("snoozed")
      // the pattern's other image is not snoozed; the in-policy image stays in policy; pending and rejected suppress nothing
      expect(at("Dockerfile:11:6").status).toBe("out-of-policy")
      expect(at("compose.yaml:10:12").status).toBe("in-policy")
      expect(at("compose.yaml:3:12").status).toBe("out-of-policy")
      expect(at(".github/workflows/ci.yml:6:16").status).toBe("out-of-policy")
    }, 300_000)

    it("table: the SNOOZED column shows until when; the summary counts the snoozed", async () => {
      const r = await checkRepository([])
      golden("table.txt", normalize(r.stdout))
      expect(r.stdout).toContain("7 files, 23 findings: 10 out of policy, 5 snoozed, 2 unresolved, 6 in policy or without a mapping")
      expect(r.code).toBe(1)
    }, 300_000)

    it("sarif: a snoozed finding is a result with a suppression", async () => {
      const r = await checkRepository(["--format", "sarif"])
      golden("report.sarif", normalize(r.stdout))
      const results: Array<any> = JSON.parse(r.stdout).runs[0].results
      expect(results).toHaveLength(15)
      const suppressed = results.filter((x) => x.suppressions !== undefined)
      expect(
        suppressed.map((x) => `${x.locations[0].physicalLocation.artifactLocation.uri}:${x.locations[0].physicalLocation.region.startLine}`)
          .sort()
      )
        .toEqual([
          ".github/workflows/ci.yml:12",
          ".github/workflows/ci.yml:9",
          "compose.yaml:5",
          "compose.yaml:8",
          "services/api/Dockerfile:4"
        ])
      for (const x of suppressed) {
        expect(x.suppressions).toEqual([{
          kind: "external",
          status: "accepted",
          justification: expect.stringContaining(`snoozed until ${until}`)
        }])
      }
      expect(r.code).toBe(1)
    }, 300_000)

    it("exit 0 when every finding out of policy is snoozed, and with --fail-on none", async () => {
      const dir = mkdtempSync(join(tmpdir(), "image-policy-check-snoozed-"))
      dirs.push(dir)
      writeFileSync(
        join(dir, "compose.yaml"),
        "services:\n  cache:\n    image: redis:7\n  arm:\n    image: redis:7\n    platform: linux/arm64\n  db:\n    image: postgres:16\n"
      )
      const snoozed = await checkRepository(["--format", "json"], dir)
      expect(snoozed.stderr).toBe("")
      expect(snoozed.code).toBe(0)
      expect(JSON.parse(snoozed.stdout).summary).toMatchObject({ outOfPolicy: 0, snoozed: 2, inPolicy: 1 })
      // the same file without the repository: no snooze applies, so it fails
      const unsnoozed = await run(
        ["check", "--server", host!.url, "--org", host!.org.id],
        { IMAGE_POLICY_API_KEY: secrets.readOnly },
        "",
        dir
      )
      expect(unsnoozed.code).toBe(1)
      expect(unsnoozed.stderr).toBe("image-policy: 2 findings out of policy\n")
      const reportOnly = await checkRepository(["--fail-on", "none"])
      expect(reportOnly.code).toBe(0)
      expect(reportOnly.stderr).toBe("")
    }, 300_000)
  })
})
