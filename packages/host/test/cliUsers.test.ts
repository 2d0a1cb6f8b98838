/**
 * `image-policy users create` and `users set-password` (issue 17; docs/cli.md) as a user runs them:
 * the built bin, a seeded PGlite store, then sign-in over the web handler on that store.
 */
import { StoreConfig } from "@image-policy/adapters"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as App from "../src/App.js"
import { ensureBuilt } from "./support/build.js"
import { run } from "./support/cli.js"

const dirs: Array<string> = []
beforeAll(ensureBuilt, 600_000)
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe("users create, users set-password", () => {
  it("creates members who sign in with a piped or a generated password; set-password replaces it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "image-policy-users-"))
    dirs.push(dir)
    const data = join(dir, "data")
    const store = `pglite:${data}`
    writeFileSync(join(dir, "seed.json"), JSON.stringify({ organizations: [{ id: "org_users", name: "Users", edition: "team" }] }))
    expect((await run(["seed", "--store", store, join(dir, "seed.json")])).code).toBe(0)

    const piped = await run(
      ["users", "create", "--store", store, "--org", "org_users", "--email", "Ada@Example.com", "--role", "Owner", "--name", "Ada"],
      {},
      "a piped password 1\n"
    )
    expect(piped.stderr).toBe("")
    expect(piped.code).toBe(0)
    const ada = JSON.parse(piped.stdout)
    expect(ada).toMatchObject({ email: "Ada@Example.com", name: "Ada", role: "Owner", organizationId: "org_users" })
    expect(ada.password).toBeUndefined()

    const generated = await run([
      "users",
      "create",
      "--store",
      store,
      "--org",
      "org_users",
      "--email",
      "rita@example.com",
      "--permission",
      "audit:read"
    ])
    expect(generated.code).toBe(0)
    const rita = JSON.parse(generated.stdout)
    expect(rita).toMatchObject({ email: "rita@example.com", name: "rita@example.com", permissions: ["audit:read"] })
    expect(rita.password).toMatch(/^[A-Za-z0-9_-]{24}$/)

    // refusals: a short password (names it, writes nothing), a taken email, an unknown org, both access flags
    const short = await run(
      ["users", "create", "--store", store, "--org", "org_users", "--email", "x@example.com", "--role", "Owner"],
      {},
      "short\n"
    )
    expect(short.code).toBe(2)
    expect(short.stderr).toContain("password")
    expect(short.stderr).not.toContain("short\n")
    const taken = await run(["users", "create", "--store", store, "--org", "org_users", "--email", "ADA@example.com", "--role", "Owner"])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain("already exists")
    expect((await run(["users", "create", "--store", store, "--org", "org_nowhere", "--email", "y@example.com", "--role", "Owner"])).code)
      .toBe(1)
    expect(
      (await run([
        "users",
        "create",
        "--store",
        store,
        "--org",
        "org_users",
        "--email",
        "y@example.com",
        "--role",
        "Owner",
        "--permission",
        "audit:read"
      ])).code
    ).toBe(2)

    const reset = await run(
      ["users", "set-password", "--store", store, "--org", "org_users", "--email", "RITA@example.com"],
      {},
      "rita's new password\n"
    )
    expect(reset.code).toBe(0)
    expect(JSON.parse(reset.stdout)).toMatchObject({ id: rita.id, email: "rita@example.com" })
    expect((await run(["users", "set-password", "--store", store, "--org", "org_users", "--email", "nobody@example.com"])).code).toBe(1)

    const { dispose, handler } = App.webHandler({ ...App.defaults, accessLog: false }, StoreConfig.layer({ _tag: "pglite", dataDir: data }))
    try {
      const signIn = (email: string, password: string) =>
        handler(
          new Request("http://localhost/api/v1/session", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email, password })
          })
        )
      const ok = await signIn("ada@example.com", "a piped password 1")
      expect(ok.status).toBe(200)
      expect(((await ok.json()) as any).organization).toMatchObject({ id: "org_users", edition: "team" })
      expect((await signIn("rita@example.com", rita.password)).status).toBe(401)
      expect((await signIn("rita@example.com", "rita's new password")).status).toBe(200)
    } finally {
      await dispose()
    }
  }, 600_000)
})
