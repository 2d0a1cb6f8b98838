/**
 * What a host does with its store before it serves: load a seed file (idempotent for fixed
 * organization ids, with or without `seedUpdate`) and, for `--demo`, make sure the demo organization exists and mint a fresh demo
 * key (only its hash is stored, so a restart cannot show the previous one again) and a fresh
 * password for the demo user of the web console (the same reason; it also ends that user's sessions).
 */
import { Permission, Workflows } from "@image-policy/core"
import type { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { demoOrgId, demoSeed, demoUserEmail } from "./seed/demo.js"
import * as Seed from "./seed/Seed.js"

export interface BootOptions {
  readonly seed?: Seed.SeedFile | undefined
  /** Apply the seed to organizations that exist too (`--seed-update`). */
  readonly seedUpdate?: boolean | undefined
  readonly demo?: boolean | undefined
}

export interface BootResult {
  readonly seeded: ReadonlyArray<Seed.SeededOrganization>
  readonly demo?:
    | {
      readonly orgId: string
      readonly apiKey: string
      readonly apiKeyId: string
      /** The web console's demo user and its password of this start (shown once). */
      readonly userEmail: string
      readonly password: string
    }
    | undefined
}

export const boot = Effect.fn("Boot.boot")(function*(options: BootOptions) {
  const seeded = options.seed ? yield* Seed.load(options.seed, { update: options.seedUpdate }) : []
  if (!options.demo) return { seeded } satisfies BootResult
  yield* Seed.load(Result.getOrThrow(Seed.parse(JSON.stringify(demoSeed))))
  const caller = { orgId: demoOrgId as Id.OrgId, actor: { kind: "system", name: "demo" }, correlationId: "boot" } as const
  const key = yield* Workflows.ApiKeys.createApiKey(caller, {
    name: `demo ${new Date().toISOString()}`,
    role: "Owner",
    expiresInDays: 30
  })
  const existing = yield* Workflows.Members.findMemberByEmail(caller.orgId, demoUserEmail)
  // a demo organization made before the web console has no demo user yet
  const user = Option.isSome(existing) ? existing.value : yield* Workflows.Members.createMember(
    { ...caller, permissions: Permission.allPermissions },
    { email: demoUserEmail, name: "Demo Owner", role: "Owner" }
  )
  const password = yield* Workflows.Sessions.generatePassword
  yield* Workflows.Sessions.setPassword(caller, user.id, password)
  return {
    seeded,
    demo: { orgId: demoOrgId, apiKey: key.secret, apiKeyId: key.id, userEmail: demoUserEmail, password }
  } satisfies BootResult
})
