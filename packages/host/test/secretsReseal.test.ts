/**
 * Rotating the secret key (docs/deploy.md): `image-policy secrets reseal` with the new key as
 * IMAGE_POLICY_SECRET_KEY and the old one in IMAGE_POLICY_SECRET_KEY_PREVIOUS seals every stored
 * secret again under the new key, after which the new key alone opens them. Run as a user runs it:
 * the built bin on an embedded store.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AesGcmSecretBox from "../../adapters/src/crypto/AesGcmSecretBox.js"
import { ensureBuilt } from "./support/build.js"
import { run } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "ip-reseal-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeAll(ensureBuilt, 600_000)

const token = "glpat-RESEALTOKEN0123456789"
const hookSecret = "reseal-webhook-secret-0123456789"

describe("image-policy secrets reseal", () => {
  it("seals every secret under the current key, opening each with a previous key; then the old key can go", async () => {
    const [oldKey, newKey, strangerKey] = [0, 1, 2].map(() => AesGcmSecretBox.generateKey())
    const store = `pglite:${join(dir, "data")}`
    const seedFile = join(dir, "seed.json")
    writeFileSync(
      seedFile,
      JSON.stringify({
        organizations: [{
          name: "Rotating",
          edition: "enterprise",
          vcsConnections: [{
            provider: "gitlab",
            externalAccountName: "rotating",
            api: { baseUrl: "https://gitlab.example.com/api/v4", token, webhookSecret: hookSecret }
          }]
        }]
      })
    )
    const seeded = await run(["seed", "--store", store, seedFile], { IMAGE_POLICY_SECRET_KEY: oldKey! })
    expect(seeded.stderr).toBe("")
    expect(seeded.code).toBe(0)

    // the new key alone opens nothing yet
    const withoutPrevious = await run(["secrets", "reseal", "--store", store], { IMAGE_POLICY_SECRET_KEY: newKey! })
    expect(withoutPrevious.code).toBe(1)
    expect(JSON.parse(withoutPrevious.stdout)).toMatchObject({ resealed: 0, unopened: [{ kind: "vcsConnection" }] })
    expect(withoutPrevious.stderr).toContain("IMAGE_POLICY_SECRET_KEY_PREVIOUS")

    const rotated = await run(["secrets", "reseal", "--store", store], {
      IMAGE_POLICY_SECRET_KEY: newKey!,
      IMAGE_POLICY_SECRET_KEY_PREVIOUS: `${strangerKey}, ${oldKey}`
    })
    expect(rotated.stderr).toBe("")
    expect(rotated.code).toBe(0)
    expect(JSON.parse(rotated.stdout)).toEqual({ resealed: 2, unopened: [] })

    // everything is under the new key now: it opens them without the old one
    const again = await run(["secrets", "reseal", "--store", store], { IMAGE_POLICY_SECRET_KEY: newKey! })
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ resealed: 2, unopened: [] })
    for (const out of [seeded, withoutPrevious, rotated, again]) {
      for (const secret of [token, hookSecret, oldKey!, newKey!, strangerKey!]) expect(out.stdout + out.stderr).not.toContain(secret)
    }
  }, 300_000)

  it("refuses a previous key that is not 32 bytes of base64, naming its position and not its value", async () => {
    const bad = await run(["secrets", "reseal", "--store", "memory"], {
      IMAGE_POLICY_SECRET_KEY: AesGcmSecretBox.generateKey(),
      IMAGE_POLICY_SECRET_KEY_PREVIOUS: `${AesGcmSecretBox.generateKey()},not-a-key`
    })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("IMAGE_POLICY_SECRET_KEY_PREVIOUS (key 2)")
    expect(bad.stderr).not.toContain("not-a-key")
  })
})
