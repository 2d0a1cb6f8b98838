/**
 * What the loader stores for a seed's connections and API keys, shared by the first load and
 * `seed --update`: the API creates neither fixture connections, nor connections reading their
 * token from an environment variable, nor keys with a secret chosen in advance.
 */
import type { FixtureVcs } from "@image-policy/adapters"
import { ApiKey, type Id, Ids, Permission, SecretBox, SecretHasher, type Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type { SeedOrganization } from "./SeedFile.js"

type SeedConnection = SeedOrganization["vcsConnections"][number]
type SeedKey = SeedOrganization["apiKeys"][number]

/** The caller the seed's changes are made as: audit rows name the system actor `seed`. */
export const seedCaller = (orgId: Id.OrgId): Workflows.Roles.Grantor => ({
  orgId,
  actor: { kind: "system", name: "seed" },
  correlationId: "seed",
  permissions: Permission.allPermissions
})

/** A connection's stored settings: fixture data as given; an API connection's variable names as given, values sealed. */
export const connectionSettings = (c: SeedConnection) =>
  Effect.gen(function*() {
    if (c.fixture !== undefined) {
      const settings: FixtureVcs.ConnectionSettings = {
        kind: "fixture",
        repositories: c.fixture.repositories,
        ...(c.fixture.webhookSecret !== undefined ? { webhookSecret: c.fixture.webhookSecret } : {})
      }
      return settings
    }
    const api = c.api!
    const box = yield* SecretBox
    const settings: FixtureVcs.ConnectionSettings = {
      kind: "api",
      baseUrl: api.baseUrl,
      ...(api.tokenEnv !== undefined ? { tokenEnv: api.tokenEnv } : {}),
      ...(api.token !== undefined ? { sealedToken: yield* box.seal(api.token) } : {}),
      ...(api.webhookSecretEnv !== undefined ? { webhookSecretEnv: api.webhookSecretEnv } : {}),
      ...(api.webhookSecret !== undefined ? { sealedWebhookSecret: yield* box.seal(api.webhookSecret) } : {})
    }
    return settings
  })

/** A seeded API key's row: only the secret's hash is kept. */
export const apiKeyRow = (k: SeedKey, now: Date) =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const hasher = yield* SecretHasher
    return {
      id: yield* ids.next("apiKey"),
      serviceAccountId: yield* ids.next("serviceAccount"),
      name: k.name,
      prefix: ApiKey.secretPrefix(k.secret),
      secretHash: yield* hasher.hash(k.secret),
      role: k.role ?? null,
      permissions: k.permissions ? [...new Set(k.permissions)] : [],
      expiresAt: ApiKey.expiresAt(now, k.expiresInDays),
      revokedAt: null,
      lastUsedAt: null,
      createdAt: now.toISOString()
    }
  })

/** Whether two permission lists hold the same set. */
export const samePermissions = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const left = new Set(a)
  const right = new Set(b)
  return left.size === right.size && [...left].every((p) => right.has(p))
}
