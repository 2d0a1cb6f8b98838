/**
 * A real host for the console's end-to-end tests: the host of `packages/host` (in this process),
 * on an in-memory PGlite, loaded with `consoleSeed` (an organization with an Owner and a
 * Read Only user of known passwords and API keys for test setup, and a second organization),
 * serving the built console (`dist/`) at `/`, hashing passwords at the host suites' test cost.
 */
import { PgliteClient, StoreConfig } from "@image-policy/adapters"
import * as Result from "effect/Result"
import { freshPglite } from "../../../adapters/test/support/pglite.js"
import * as App from "../../../host/src/App.js"
import { type Running, start, type StartOptions } from "../../../host/src/runtime/node.js"
import * as Seed from "../../../host/src/seed/Seed.js"
import { cheapHashing } from "../../../host/test/support/sessions.js"
import { distDir, ensureConsoleBuilt } from "./build.js"

export const users = {
  owner: { email: "owner@acme.test", name: "Olivia Owner", password: "owner-password-correct-horse", role: "Owner" },
  readOnly: { email: "reader@acme.test", name: "Rita Reader", password: "reader-password-battery-staple", role: "Read Only" },
  otherOrg: { email: "owner@globex.test", name: "Gus Globex", password: "globex-password-0123456789", role: "Owner" }
} as const

export const apiKeys = {
  owner: "console-owner-secret-0123456789abcdefghijklm",
  readOnly: "console-reader-secret-0123456789abcdefghijkl",
  otherOrg: "console-globex-secret-0123456789abcdefghijkl"
} as const

const user = (u: { readonly email: string; readonly name: string; readonly password: string; readonly role: string }) => ({
  email: u.email,
  name: u.name,
  role: u.role,
  password: u.password
})

export const consoleSeed = {
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
      vcsConnections: [{
        provider: "github",
        externalAccountName: "acme",
        status: "active",
        fixture: {
          repositories: [
            { externalRepoId: "1001", fullName: "acme/api", defaultBranch: "main", branches: ["main", "develop"], files: {} },
            { externalRepoId: "1002", fullName: "acme/web", defaultBranch: "main", branches: ["main"], files: {} }
          ]
        }
      }],
      policyGroups: [
        { name: "Base images", applyToAllRepos: false, phases: [{ name: "Curated", source: "internal" }] },
        { name: "Everywhere", applyToAllRepos: true, notificationTeam: "none", phases: [{ name: "Baseline", source: "internal" }] }
      ],
      apiKeys: [
        { name: "e2e owner", secret: apiKeys.owner, role: "Owner", expiresInDays: null },
        { name: "e2e reader", secret: apiKeys.readOnly, role: "Read Only", expiresInDays: 30 }
      ],
      users: [user(users.owner), user(users.readOnly)]
    },
    {
      id: "org_globex",
      name: "Globex",
      edition: "enterprise",
      apiKeys: [{ name: "owner", secret: apiKeys.otherOrg, role: "Owner", expiresInDays: null }],
      users: [user(users.otherOrg)]
    }
  ]
}

export interface ConsoleHost extends Running {
  readonly orgId: string
  /** `fetch` against the host with an API key (test setup), answering status and parsed body. */
  readonly api: (
    method: string,
    path: string,
    options?: { readonly key?: string; readonly body?: unknown; readonly headers?: Record<string, string> }
  ) => Promise<{ readonly status: number; readonly headers: Headers; readonly body: any }>
}

export interface ConsoleHostOptions {
  /** Merged into the host's App options (e.g. the session lifetimes). */
  readonly app?: Partial<App.Options> & Record<string, unknown>
  readonly services?: App.ServiceOptions
  readonly seed?: unknown
  readonly deliveryWorker?: StartOptions["deliveryWorker"]
  /** The daily compliance snapshot worker (off unless given): its first pass writes today's snapshot. */
  readonly snapshotWorker?: StartOptions["snapshotWorker"]
  /** The scan worker (off by default): `{}` runs queued scans, e.g. after onboarding. */
  readonly scanWorker?: StartOptions["scanWorker"]
}

export const startConsoleHost = async (options: ConsoleHostOptions = {}): Promise<ConsoleHost> => {
  await ensureConsoleBuilt()
  const pglite = await freshPglite()
  let running: Running
  try {
    running = await start({
      port: 0,
      host: "127.0.0.1",
      store: StoreConfig.migrated(PgliteClient.layerFromInstance(pglite)),
      app: { ...App.defaults, accessLog: false, rateLimit: null, console: distDir, ...options.app } as App.Options,
      seed: Result.getOrThrow(Seed.parse(JSON.stringify(options.seed ?? consoleSeed))),
      logLevel: "Warn",
      // every sign-in and every seeded password runs the KDF: at the production cost that is most of a
      // suite's CPU on a 2-core machine (the production parameters are checked in adapters' crypto.test.ts)
      services: { allowUnsafeWebhookTargets: true, passwordHashing: cheapHashing, ...options.services },
      deliveryWorker: options.deliveryWorker ?? false,
      syncWorker: false,
      scanWorker: options.scanWorker ?? false,
      routineWorker: false,
      snoozeExpiryWorker: false,
      snapshotWorker: options.snapshotWorker ?? false,
      instanceId: `console-${globalThis.crypto.randomUUID().slice(0, 8)}`
    })
  } catch (error) {
    await pglite.close()
    throw error
  }
  const api: ConsoleHost["api"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { "x-api-key": opts.key ?? apiKeys.owner, ...opts.headers }
    if (opts.body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {})
    })
    const text = await response.text()
    let body: unknown
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      body = text
    }
    return { status: response.status, headers: response.headers, body }
  }
  return {
    ...running,
    orgId: running.boot.seeded[0]!.id,
    api,
    stop: async () => {
      try {
        await running.stop()
      } finally {
        await pglite.close()
      }
    }
  }
}
