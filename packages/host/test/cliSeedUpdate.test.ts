/**
 * `image-policy seed --update` as a user runs it (the built bin, a pglite store): a second seed
 * reaches an organization that exists only with `--update`, and applying it twice prints the same
 * ids and writes nothing the second time.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "./support/build.js"
import { run } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "image-policy-seed-update-"))
beforeAll(ensureBuilt, 600_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const seed = (teams: ReadonlyArray<string>, users: ReadonlyArray<unknown> = []) => ({
  organizations: [{ id: "org_cliupdate", name: "CLI update", edition: "team", teams: teams.map((name) => ({ name })), users }]
})

describe("seed --update", () => {
  it("applies a seed to an existing organization only with --update, idempotently", async () => {
    const store = `pglite:${join(dir, "data")}`
    const file = join(dir, "seed.json")
    writeFileSync(file, JSON.stringify(seed(["Platform"])))
    const first = await run(["seed", "--store", store, file])
    expect(first.code, first.stderr).toBe(0)
    const platform = JSON.parse(first.stdout).organizations[0].teams["Platform"]

    writeFileSync(file, JSON.stringify(seed(["Platform", "Payments"], [{ email: "ada@example.com", role: "Read Only" }])))
    const skipped = await run(["seed", "--store", store, file])
    expect(skipped.code, skipped.stderr).toBe(0)
    expect(JSON.parse(skipped.stdout).organizations[0]).toMatchObject({ existing: true, teams: {}, members: {} })

    const updated = await run(["seed", "--update", "--store", store, file])
    expect(updated.code, updated.stderr).toBe(0)
    const org = JSON.parse(updated.stdout).organizations[0]
    expect(org).toMatchObject({ id: "org_cliupdate", existing: true })
    expect(org.teams["Platform"]).toBe(platform)
    expect(org.teams["Payments"]).toMatch(/^team_/)
    expect(org.members["ada@example.com"]).toMatch(/^mbr_/)

    const again = await run(["seed", "--update", "--store", store, file])
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).organizations[0]).toEqual(org)
  }, 240_000)
})
