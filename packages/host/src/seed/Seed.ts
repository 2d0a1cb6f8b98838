/**
 * Seed files (contracts 2): organizations with their teams, routines, VCS connections (fixture
 * data or a provider API), policy groups and API keys. A seed is validated whole before anything
 * is written, and every problem is reported with its JSON path; a valid seed is written in one
 * transaction. An organization whose fixed `id` already exists is left as it is, so a service can
 * load the same seed at every start.
 *
 * An `api` connection's token and push webhook secret are given either as the name of an
 * environment variable (`tokenEnv`, `webhookSecretEnv`) or as the value itself (`token`,
 * `webhookSecret`): a value is sealed with the core's `SecretBox` on load and only the sealed form
 * is stored. Problems about those fields never repeat what was given.
 */
import { FixtureVcs } from "@image-policy/adapters"
import {
  AccessStore,
  ApiKey,
  Id,
  Ids,
  Input,
  IsoDateTime,
  JsonValue,
  Organization,
  OrganizationStore,
  Permission,
  PolicyGroup,
  PolicyStore,
  RepositoryStore,
  SecretBox,
  SecretHasher,
  transaction,
  VcsConnection
} from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/** A key that may be left out of the file, with the value it then has. */
const withDefault = <S extends Schema.Top>(schema: S, value: S["Type"]) =>
  schema.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(value)))

const Name = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))

const Routine = Schema.Struct({
  name: Name,
  active: withDefault(Schema.Boolean, true),
  intervalDays: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 365 }))
})

const Team = Schema.Struct({ name: Name, routines: withDefault(Schema.Array(Routine), []) })

/**
 * A string whose problems are reported by `message` alone, never quoting the value (it may be a
 * secret pasted into the wrong field). The message goes on the base type and on every check: an
 * Effect 4 `message` covers only the node it is put on.
 */
const quietString = (message: string, ...checks: ReadonlyArray<(annotations: { readonly message: string }) => SchemaAST.Check<string>>) => {
  const base = Schema.String.annotate({ message })
  const [first, ...rest] = checks.map((check) => check({ message }))
  return first === undefined ? base : base.check(first, ...rest)
}

// a token pasted where its variable's name belongs must not be echoed back
const EnvName = quietString(
  "must be the name of an environment variable (A-Z, 0-9 and _, not starting with a digit), not its value",
  (a) => Schema.isPattern(/^[A-Z_][A-Z0-9_]*$/, a)
)

/** A provider token: printable, no spaces (GitHub and GitLab tokens never have any). */
const Token = quietString(
  "must be the token: 1 to 4096 printable characters without spaces",
  (a) => Schema.isPattern(/^[\x21-\x7e]{1,4096}$/, a)
)

const WebhookSecret = quietString(
  "must be a string of 16 to 4096 characters",
  (a) => Schema.isMinLength(16, a),
  (a) => Schema.isMaxLength(4096, a)
)

const Connection = Schema.Struct({
  provider: VcsConnection.VcsProvider,
  externalAccountName: Name,
  status: withDefault(VcsConnection.ConnectionStatus, "active"),
  fixture: Schema.optionalKey(Schema.Struct({
    repositories: Schema.Array(FixtureVcs.FixtureRepository),
    // the secret of the fixture's push webhooks (tests and demos; real providers use webhookSecretEnv)
    webhookSecret: Schema.optionalKey(Schema.String.check(Schema.isMinLength(16, { message: "must be at least 16 characters" })))
  })),
  api: Schema.optionalKey(Schema.Struct({
    baseUrl: Schema.String.check(Schema.isPattern(/^https?:\/\//)),
    // exactly one of the two (crossCheck); the value is sealed on load
    tokenEnv: Schema.optionalKey(EnvName),
    token: Schema.optionalKey(Token),
    // at most one of the two; without either the connection accepts no push
    webhookSecretEnv: Schema.optionalKey(EnvName),
    webhookSecret: Schema.optionalKey(WebhookSecret)
  }))
})

const Phase = Schema.Struct({
  name: Name,
  source: Schema.Literals(["internal", "external"]),
  file: Schema.optionalKey(Schema.Struct({
    connection: Name,
    repository: Name,
    branch: Name,
    path: Name,
    // how often the poll worker reads the file; push webhooks make a change arrive sooner
    pollIntervalSeconds: withDefault(PolicyGroup.PollIntervalSeconds, PolicyGroup.defaultPollIntervalSeconds)
  }))
})

const Group = Schema.Struct({
  name: Name,
  applyToAllRepos: withDefault(Schema.Boolean, false),
  notificationTeam: withDefault(Schema.String, "inherit"),
  cooldownSeconds: withDefault(Schema.NullOr(Organization.CooldownSeconds), null),
  phases: withDefault(Schema.Array(Phase), [])
})

const Key = Schema.Struct({
  name: Name,
  secret: Schema.String.check(
    Schema.makeFilter((s) => ApiKey.looksLikeSecret(s) || "must be 32 to 256 printable characters without spaces")
  ),
  role: Schema.optionalKey(Permission.RoleName),
  permissions: Schema.optionalKey(Schema.NonEmptyArray(Permission.Permission)),
  expiresInDays: ApiKey.ExpiresInDays
})

const Grant = Schema.Struct({ feature: Organization.Feature, expiresAt: withDefault(Schema.NullOr(IsoDateTime.IsoDateTime), null) })

const Org = Schema.Struct({
  id: Schema.optionalKey(Id.OrgId),
  name: Name,
  edition: Organization.Edition,
  grants: withDefault(Schema.Array(Grant), []),
  defaultNotificationTeam: Schema.optionalKey(Name),
  cooldownSeconds: withDefault(Organization.CooldownSeconds, 0),
  teams: withDefault(Schema.Array(Team), []),
  routinesWithoutTeam: withDefault(Schema.Array(Routine), []),
  vcsConnections: withDefault(Schema.Array(Connection), []),
  policyGroups: withDefault(Schema.Array(Group), []),
  apiKeys: withDefault(Schema.Array(Key), [])
})

export const SeedFile = Schema.Struct({ organizations: Schema.Array(Org) })
export type SeedFile = typeof SeedFile.Type

export interface SeedProblem {
  readonly path: string
  readonly message: string
}

export class InvalidSeed extends Data.TaggedError("InvalidSeed")<{ readonly problems: ReadonlyArray<SeedProblem> }> {
  override get message() {
    return `invalid seed:\n${this.problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}`
  }
}

/** Core's field path (`organizations[0].edition`) as a JSON path (`$.organizations[0].edition`). */
const jsonPath = (path: string) => path === "$" ? path : `$.${path}`

// `reportInput`: a seed file is the user's own text, so problems may quote the refused value
// (`Expected "free" | "team" | "enterprise", actual "gold"`); the quiet fields above never do
const decode = Schema.decodeUnknownResult(SeedFile)
const decodeOptions = { errors: "all", onExcessProperty: "error", reportInput: true } as const

/** The checks a schema cannot express: names that must refer to something, and uniqueness. */
const crossCheck = (seed: SeedFile): Array<SeedProblem> => {
  const problems: Array<SeedProblem> = []
  const unique = (values: ReadonlyArray<string>, path: (i: number) => string, what: string) => {
    const seen = new Set<string>()
    values.forEach((v, i) => {
      if (seen.has(v)) problems.push({ path: path(i), message: `duplicate ${what} ${JSON.stringify(v)}` })
      seen.add(v)
    })
  }
  unique(seed.organizations.flatMap((o) => (o.id ? [o.id] : [])), (i) => `$.organizations[${i}].id`, "organization id")
  const secrets = new Set<string>()
  seed.organizations.forEach((org, o) => {
    const at = `$.organizations[${o}]`
    const teams = new Set(org.teams.map((t) => t.name))
    unique(org.teams.map((t) => t.name), (i) => `${at}.teams[${i}].name`, "team")
    org.teams.forEach((t, i) => unique(t.routines.map((r) => r.name), (j) => `${at}.teams[${i}].routines[${j}].name`, "routine"))
    if (org.defaultNotificationTeam !== undefined && !teams.has(org.defaultNotificationTeam)) {
      problems.push({ path: `${at}.defaultNotificationTeam`, message: `no team named ${JSON.stringify(org.defaultNotificationTeam)}` })
    }
    unique(org.vcsConnections.map((c) => c.externalAccountName), (i) => `${at}.vcsConnections[${i}].externalAccountName`, "connection")
    const connections = new Map(org.vcsConnections.map((c) => [c.externalAccountName, c]))
    org.vcsConnections.forEach((c, i) => {
      if ((c.fixture === undefined) === (c.api === undefined)) {
        problems.push({ path: `${at}.vcsConnections[${i}]`, message: "give exactly one of `fixture` or `api`" })
      }
      if (c.api !== undefined && (c.api.token === undefined) === (c.api.tokenEnv === undefined)) {
        problems.push({ path: `${at}.vcsConnections[${i}].api`, message: "give exactly one of `token` or `tokenEnv`" })
      }
      if (c.api?.webhookSecret !== undefined && c.api.webhookSecretEnv !== undefined) {
        problems.push({ path: `${at}.vcsConnections[${i}].api`, message: "give at most one of `webhookSecret` or `webhookSecretEnv`" })
      }
      unique(
        (c.fixture?.repositories ?? []).map((r) => r.externalRepoId),
        (j) => `${at}.vcsConnections[${i}].fixture.repositories[${j}].externalRepoId`,
        "externalRepoId"
      )
    })
    unique(org.policyGroups.map((g) => g.name), (i) => `${at}.policyGroups[${i}].name`, "policy group")
    org.policyGroups.forEach((g, i) => {
      const gat = `${at}.policyGroups[${i}]`
      if (g.notificationTeam !== "inherit" && g.notificationTeam !== "none" && !teams.has(g.notificationTeam)) {
        problems.push({ path: `${gat}.notificationTeam`, message: `must be "inherit", "none" or a team name` })
      }
      unique(g.phases.map((p) => p.name), (j) => `${gat}.phases[${j}].name`, "phase")
      g.phases.forEach((p, j) => {
        const pat = `${gat}.phases[${j}]`
        if (p.source === "internal" && p.file !== undefined) {
          problems.push({ path: `${pat}.file`, message: "only external phases have a file" })
        }
        if (p.source === "external" && p.file === undefined) {
          problems.push({ path: `${pat}.file`, message: "an external phase needs its file" })
        }
        if (p.file !== undefined && !connections.has(p.file.connection)) {
          problems.push({
            path: `${pat}.file.connection`,
            message: `no VCS connection with externalAccountName ${JSON.stringify(p.file.connection)}`
          })
        }
      })
    })
    org.apiKeys.forEach((k, i) => {
      const kat = `${at}.apiKeys[${i}]`
      if ((k.role === undefined) === (k.permissions === undefined)) {
        problems.push({ path: kat, message: "give exactly one of `role` or `permissions`" })
      }
      // the message names the key, never the secret
      if (secrets.has(k.secret)) problems.push({ path: `${kat}.secret`, message: "the same secret is used by another key" })
      secrets.add(k.secret)
    })
  })
  return problems
}

/** Parses and validates a seed file's text; every problem at once. */
export const parse = (text: string): Result.Result<SeedFile, InvalidSeed> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Result.fail(new InvalidSeed({ problems: [{ path: "$", message: "not valid JSON" }] }))
  }
  // text no store can hold is a problem of the file, found before any write (PostgreSQL refuses it)
  if (!JsonValue.withinDepth(json, JsonValue.maxDepth)) {
    return Result.fail(new InvalidSeed({ problems: [{ path: "$", message: `nests more than ${JsonValue.maxDepth} levels` }] }))
  }
  const unstorable = JsonValue.unstorableFields(json)
  if (unstorable.length > 0) {
    return Result.fail(
      new InvalidSeed({
        problems: unstorable.map((p) => ({ path: jsonPath(p.path === "(body)" ? "$" : p.path), message: p.message }))
      })
    )
  }
  const decoded = decode(json, decodeOptions)
  if (Result.isFailure(decoded)) {
    const problems = Input.fieldErrors(decoded.failure, "$", { withValues: true }).map((e) => ({
      path: jsonPath(e.path),
      message: e.message
    }))
    return Result.fail(new InvalidSeed({ problems }))
  }
  const problems = crossCheck(decoded.success)
  return problems.length > 0 ? Result.fail(new InvalidSeed({ problems })) : Result.succeed(decoded.success)
}

/**
 * Whether loading the seed seals values with the secret key (an `api` connection's `token` or
 * `webhookSecret`): whoever loads it must use the key the hosts serving the store use.
 */
export const sealsSecrets = (seed: SeedFile): boolean =>
  seed.organizations.some((o) => o.vcsConnections.some((c) => c.api?.token !== undefined || c.api?.webhookSecret !== undefined))

/** An API connection's stored settings: variable names as given, values sealed. */
const apiSettings = (api: NonNullable<SeedFile["organizations"][number]["vcsConnections"][number]["api"]>) =>
  Effect.gen(function*() {
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

export interface SeededOrganization {
  readonly id: string
  readonly name: string
  readonly existing: boolean
  readonly teams: Record<string, string>
  readonly routines: Record<string, string>
  readonly vcsConnections: Record<string, string>
  readonly policyGroups: Record<string, { readonly id: string; readonly phases: Record<string, string> }>
  readonly apiKeys: Record<string, string>
}

/** Writes a validated seed in one transaction and answers the ids it created (names -> ids). */
export const load = Effect.fn("Seed.load")(function*(seed: SeedFile) {
  const organizationStore = yield* OrganizationStore
  const { vcsConnections } = yield* RepositoryStore
  const { policyGroups } = yield* PolicyStore
  const apiKeys = yield* AccessStore
  const ids = yield* Ids
  const hasher = yield* SecretHasher
  const now = new Date(yield* Clock.currentTimeMillis)
  return yield* transaction(Effect.gen(function*() {
    const result: Array<SeededOrganization> = []
    for (const org of seed.organizations) {
      const orgId = org.id ?? (yield* ids.next("organization"))
      if (org.id !== undefined && Option.isSome(yield* organizationStore.organizations.get(org.id))) {
        result.push({
          id: orgId,
          name: org.name,
          existing: true,
          teams: {},
          routines: {},
          vcsConnections: {},
          policyGroups: {},
          apiKeys: {}
        })
        continue
      }
      const teams: Record<string, Id.TeamId> = {}
      for (const team of org.teams) teams[team.name] = yield* ids.next("team")
      yield* organizationStore.organizations.insert({
        id: orgId,
        name: org.name,
        edition: org.edition,
        grants: org.grants,
        defaultNotificationTeamId: org.defaultNotificationTeam !== undefined ? teams[org.defaultNotificationTeam]! : null,
        cooldownSeconds: org.cooldownSeconds
      })
      const routines: Record<string, string> = {}
      for (const team of org.teams) {
        yield* organizationStore.teams.insert(orgId, { id: teams[team.name]!, name: team.name })
        for (const r of team.routines) {
          const id = yield* ids.next("routine")
          routines[`${team.name}/${r.name}`] = id
          yield* organizationStore.routines.insert(orgId, {
            id,
            teamId: teams[team.name]!,
            name: r.name,
            active: r.active,
            intervalDays: r.intervalDays
          })
        }
      }
      for (const r of org.routinesWithoutTeam) {
        const id = yield* ids.next("routine")
        routines[r.name] = id
        yield* organizationStore.routines.insert(orgId, { id, teamId: null, name: r.name, active: r.active, intervalDays: r.intervalDays })
      }
      const connections: Record<string, Id.VcsConnectionId> = {}
      for (const c of org.vcsConnections) {
        const id = yield* ids.next("vcsConnection")
        connections[c.externalAccountName] = id
        const settings: FixtureVcs.ConnectionSettings = c.fixture !== undefined
          ? {
            kind: "fixture",
            repositories: c.fixture.repositories,
            ...(c.fixture.webhookSecret !== undefined ? { webhookSecret: c.fixture.webhookSecret } : {})
          }
          : yield* apiSettings(c.api!)
        yield* vcsConnections.insert(
          orgId,
          { id, provider: c.provider, externalAccountName: c.externalAccountName, status: c.status },
          settings
        )
      }
      const groups: Record<string, { id: string; phases: Record<string, string> }> = {}
      for (const g of org.policyGroups) {
        const id = yield* ids.next("policyGroup")
        const phases: Record<string, string> = {}
        const phaseRows = []
        for (const [position, p] of g.phases.entries()) {
          const phaseId = yield* ids.next("phase")
          phases[p.name] = phaseId
          phaseRows.push({
            id: phaseId,
            name: p.name,
            sourceType: p.source,
            position,
            ...(p.file !== undefined
              ? {
                external: {
                  vcsConnectionId: connections[p.file.connection]!,
                  repositoryFullName: p.file.repository,
                  branch: p.file.branch,
                  path: p.file.path,
                  pollIntervalSeconds: p.file.pollIntervalSeconds,
                  lastSyncedAt: null,
                  lastError: null,
                  lastVersion: null
                }
              }
              : {})
          })
        }
        groups[g.name] = { id, phases }
        yield* policyGroups.insert(orgId, {
          id,
          name: g.name,
          applyToAllRepos: g.applyToAllRepos,
          notificationRouting: g.notificationTeam === "inherit" || g.notificationTeam === "none"
            ? { kind: g.notificationTeam }
            : { kind: "team", teamId: teams[g.notificationTeam]! },
          cooldownSeconds: g.cooldownSeconds,
          phases: phaseRows
        })
      }
      const keys: Record<string, string> = {}
      for (const k of org.apiKeys) {
        const id = yield* ids.next("apiKey")
        keys[k.name] = id
        yield* apiKeys.insert(orgId, {
          id,
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
        })
      }
      result.push({
        id: orgId,
        name: org.name,
        existing: false,
        teams,
        routines,
        vcsConnections: connections,
        policyGroups: groups,
        apiKeys: keys
      })
    }
    return result
  }))
})
