/**
 * What a host does with its store before it serves: load a seed file (idempotent for fixed
 * organization ids, with or without `seedUpdate`) and, for `--demo`, make sure the demo organization exists and mint a fresh demo
 * key (only its hash is stored, so a restart cannot show the previous one again).
 */
import { Workflows } from "@image-policy/core"
import type { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { demoOrgId, demoSeed } from "./seed/demo.js"
import * as Seed from "./seed/Seed.js"

export interface BootOptions {
  readonly seed?: Seed.SeedFile | undefined
  /** Apply the seed to organizations that exist too (`--seed-update`). */
  readonly seedUpdate?: boolean | undefined
  readonly demo?: boolean | undefined
}

export interface BootResult {
  readonly seeded: ReadonlyArray<Seed.SeededOrganization>
  readonly demo?: { readonly orgId: string; readonly apiKey: string; readonly apiKeyId: string } | undefined
}

export const boot = Effect.fn("Boot.boot")(function*(options: BootOptions) {
  const seeded = options.seed ? yield* Seed.load(options.seed, { update: options.seedUpdate }) : []
  if (!options.demo) return { seeded } satisfies BootResult
  yield* Seed.load(Result.getOrThrow(Seed.parse(JSON.stringify(demoSeed))))
  const key = yield* Workflows.ApiKeys.createApiKey(
    { orgId: demoOrgId as Id.OrgId, actor: { kind: "system", name: "demo" }, correlationId: "boot" },
    { name: `demo ${new Date().toISOString()}`, role: "Owner", expiresInDays: 30 }
  )
  return { seeded, demo: { orgId: demoOrgId, apiKey: key.secret, apiKeyId: key.id } } satisfies BootResult
})
