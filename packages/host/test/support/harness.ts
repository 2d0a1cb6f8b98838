/**
 * A real host listening on loopback for HTTP tests, over a store of the caller's choice, loaded
 * with `testSeed` (two organizations, keys of every role and a few narrow keys).
 */
import { MemoryStore } from "@image-policy/adapters"
import type { Stores } from "@image-policy/core"
import type * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as App from "../../src/App.js"
import { type Running, start } from "../../src/runtime/node.js"
import * as Seed from "../../src/seed/Seed.js"

export const secrets = {
  owner: "owner-secret-0123456789abcdefghijklmnopqrstuv",
  automation: "automation-secret-0123456789abcdefghijklmnopq",
  readOnly: "readonly-secret-0123456789abcdefghijklmnopqrs",
  draftsOnly: "drafts-only-secret-0123456789abcdefghijklmnop",
  expired: "expired-secret-0123456789abcdefghijklmnopqrstu",
  otherOrg: "other-org-secret-0123456789abcdefghijklmnopqrs",
  freeEdition: "free-edition-secret-0123456789abcdefghijklmno",
  grantOrg: "grant-org-secret-0123456789abcdefghijklmnopqrs"
} as const

const repo = (externalRepoId: string, fullName: string, branches: Array<string>) => ({
  externalRepoId,
  fullName,
  defaultBranch: branches[0]!,
  branches,
  files: {}
})

export const testSeed = {
  organizations: [
    {
      id: "org_acme",
      name: "Acme",
      edition: "enterprise",
      defaultNotificationTeam: "Platform",
      teams: [
        { name: "Platform", routines: [{ name: "Weekly", active: true, intervalDays: 7 }] },
        { name: "Payments", routines: [{ name: "Daily", active: true, intervalDays: 1 }] }
      ],
      routinesWithoutTeam: [{ name: "Loose", active: true, intervalDays: 30 }],
      vcsConnections: [
        {
          provider: "github",
          externalAccountName: "acme",
          status: "active",
          fixture: {
            repositories: [
              repo("1001", "acme/api", ["main", "release", "develop"]),
              repo("1002", "acme/web", ["main", "develop"]),
              repo("1003", "acme/policy", ["main"])
            ]
          }
        },
        {
          provider: "gitlab",
          externalAccountName: "acme-old",
          status: "inactive",
          fixture: { repositories: [repo("77", "acme-old/legacy", ["master"])] }
        },
        {
          provider: "github",
          externalAccountName: "acme-enterprise",
          status: "active",
          api: { baseUrl: "https://ghe.example.com/api/v3", tokenEnv: "GHE_TOKEN" }
        }
      ],
      policyGroups: [
        {
          name: "Base images",
          applyToAllRepos: false,
          phases: [
            { name: "Curated", source: "internal" },
            {
              name: "From repo",
              source: "external",
              file: { connection: "acme", repository: "acme/policy", branch: "main", path: "service-mappings.json" }
            }
          ]
        },
        { name: "Security", applyToAllRepos: false, phases: [{ name: "Pinned", source: "internal" }] },
        { name: "Everywhere", applyToAllRepos: true, notificationTeam: "none", phases: [{ name: "Baseline", source: "internal" }] }
      ],
      apiKeys: [
        { name: "owner", secret: secrets.owner, role: "Owner", expiresInDays: null },
        { name: "automation", secret: secrets.automation, role: "Policy Automation", expiresInDays: 90 },
        { name: "read-only", secret: secrets.readOnly, role: "Read Only", expiresInDays: 30 },
        { name: "drafts-only", secret: secrets.draftsOnly, permissions: ["policy:read", "mappings:write"], expiresInDays: 30 }
      ]
    },
    {
      id: "org_globex",
      name: "Globex",
      edition: "enterprise",
      teams: [{ name: "Ops", routines: [{ name: "Weekly", active: true, intervalDays: 7 }] }],
      vcsConnections: [{
        provider: "gitlab",
        externalAccountName: "globex",
        status: "active",
        fixture: { repositories: [repo("2001", "globex/app", ["main"])] }
      }],
      policyGroups: [{ name: "Globex images", applyToAllRepos: false, phases: [{ name: "Main", source: "internal" }] }],
      apiKeys: [{ name: "owner", secret: secrets.otherOrg, role: "Owner", expiresInDays: null }]
    },
    {
      id: "org_free",
      name: "Small",
      edition: "team",
      apiKeys: [{ name: "owner", secret: secrets.freeEdition, role: "Owner", expiresInDays: null }]
    },
    {
      id: "org_granted",
      name: "Granted",
      edition: "free",
      grants: [{ feature: "automation-api", expiresAt: "2999-01-01T00:00:00Z" }],
      apiKeys: [{ name: "owner", secret: secrets.grantOrg, role: "Owner", expiresInDays: null }]
    }
  ]
}

export interface TestHost extends Running {
  readonly ids: ReadonlyArray<Seed.SeededOrganization>
  readonly org: Seed.SeededOrganization
  readonly request: (
    method: string,
    path: string,
    options?: { readonly key?: string | null; readonly body?: unknown; readonly raw?: string; readonly headers?: Record<string, string> }
  ) => Promise<{ readonly status: number; readonly headers: Headers; readonly body: any; readonly text: string }>
}

export const startTestHost = async (options: {
  readonly store?: Layer.Layer<Stores, unknown>
  readonly app?: Partial<App.Options>
  readonly services?: App.ServiceOptions
  readonly deliveryWorker?: Parameters<typeof start>[0]["deliveryWorker"]
  /** VCS provider options, e.g. `{ fixture: Fixture.make().provider }` to change fixture files at run time. */
  readonly vcs?: App.ServiceOptions["vcs"]
  /** The external phase poll worker; off unless given (a pass at start would sync the seed's phases). */
  readonly syncWorker?: Parameters<typeof start>[0]["syncWorker"]
  /** The branch scan worker; off unless given (onboarding answers and lists show scans `queued`). */
  readonly scanWorker?: Parameters<typeof start>[0]["scanWorker"]
  /** The routine tick; off unless given. */
  readonly routineWorker?: Parameters<typeof start>[0]["routineWorker"]
  /** The snooze expiry worker; off unless given. */
  readonly snoozeExpiryWorker?: Parameters<typeof start>[0]["snoozeExpiryWorker"]
  /** The daily compliance snapshot worker; off unless given. */
  readonly snapshotWorker?: Parameters<typeof start>[0]["snapshotWorker"]
  /** The host's clock, e.g. `shiftedClock()` to let days pass. */
  readonly clock?: Parameters<typeof start>[0]["clock"]
  /** Instead of `testSeed`. */
  readonly seed?: unknown
  /** Default: one of its own, so test hosts side by side never release each other's leases at start. */
  readonly instanceId?: string
  /** How long `stop` waits for work in flight (default the host's). */
  readonly drainMs?: number
} = {}): Promise<TestHost> => {
  const running = await start({
    port: 0,
    host: "127.0.0.1",
    store: options.store ?? MemoryStore.layer,
    // API only unless a test serves the console (test/console.test.ts)
    app: { ...App.defaults, accessLog: false, rateLimit: null, console: false, ...options.app },
    seed: Result.getOrThrow(Seed.parse(JSON.stringify(options.seed ?? testSeed))),
    logLevel: "Warn",
    services: options.vcs !== undefined ? { ...options.services, vcs: options.vcs } : options.services,
    deliveryWorker: options.deliveryWorker,
    syncWorker: options.syncWorker ?? false,
    scanWorker: options.scanWorker ?? false,
    routineWorker: options.routineWorker ?? false,
    snoozeExpiryWorker: options.snoozeExpiryWorker ?? false,
    snapshotWorker: options.snapshotWorker ?? false,
    clock: options.clock,
    instanceId: options.instanceId ?? `test-${globalThis.crypto.randomUUID().slice(0, 8)}`,
    drainMs: options.drainMs
  })
  const request: TestHost["request"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers }
    const key = opts.key === undefined ? secrets.owner : opts.key
    if (key !== null) headers["x-api-key"] = key
    let body: string | undefined = opts.raw
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await fetch(`${running.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed, text }
  }
  return { ...running, ids: running.boot.seeded, org: running.boot.seeded[0]!, request }
}
