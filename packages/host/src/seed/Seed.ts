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
import { ApiKey, Id, Ids, IsoDateTime, JsonValue, Onboarding, Organization, Permission, PolicyGroup, SecretBox, SecretHasher, Store } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** One readable line for a bad enum value instead of one per allowed value. */
const oneOf = <S extends Schema.Schema<any, any, never>>(schema: S, values: ReadonlyArray<string>): S =>
  schema.annotations({
    message: (issue) => ({
      message: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(issue.actual)}`,
      override: true
    })
  }) as S

const Name = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

const Routine = Schema.Struct({
  name: Name,
  active: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  intervalDays: Schema.Int.pipe(Schema.between(1, 365))
})

const Team = Schema.Struct({ name: Name, routines: Schema.optionalWith(Schema.Array(Routine), { default: () => [] }) })

/** A problem message that replaces the schema's own, which would quote the value (maybe a secret). */
const quietly = <S extends Schema.Schema<any, any, never>>(schema: S, message: string): S =>
  schema.annotations({ message: () => ({ message, override: true }) }) as S

// a token pasted where its variable's name belongs must not be echoed back
const EnvName = quietly(
  Schema.String.pipe(Schema.pattern(/^[A-Z_][A-Z0-9_]*$/)),
  "must be the name of an environment variable (A-Z, 0-9 and _, not starting with a digit), not its value"
)

/** A provider token: printable, no spaces (GitHub and GitLab tokens never have any). */
const Token = quietly(
  Schema.String.pipe(Schema.pattern(/^[\x21-\x7e]{1,4096}$/)),
  "must be the token: 1 to 4096 printable characters without spaces"
)

const WebhookSecret = quietly(
  Schema.String.pipe(Schema.minLength(16), Schema.maxLength(4096)),
  "must be a string of 16 to 4096 characters"
)

const Connection = Schema.Struct({
  provider: oneOf(Onboarding.VcsProvider, Onboarding.VcsProvider.literals),
  externalAccountName: Name,
  status: Schema.optionalWith(oneOf(Onboarding.ConnectionStatus, Onboarding.ConnectionStatus.literals), { default: () => "active" as const }),
  fixture: Schema.optional(Schema.Struct({
    repositories: Schema.Array(FixtureVcs.FixtureRepository),
    // the secret of the fixture's push webhooks (tests and demos; real providers use webhookSecretEnv)
    webhookSecret: Schema.optional(Schema.String.pipe(Schema.minLength(16, { message: () => "must be at least 16 characters" })))
  })),
  api: Schema.optional(Schema.Struct({
    baseUrl: Schema.String.pipe(Schema.pattern(/^https?:\/\//)),
    // exactly one of the two (crossCheck); the value is sealed on load
    tokenEnv: Schema.optional(EnvName),
    token: Schema.optional(Token),
    // at most one of the two; without either the connection accepts no push
    webhookSecretEnv: Schema.optional(EnvName),
    webhookSecret: Schema.optional(WebhookSecret)
  }))
})

const Phase = Schema.Struct({
  name: Name,
  source: oneOf(Schema.Literal("internal", "external"), ["internal", "external"]),
  file: Schema.optional(Schema.Struct({
    connection: Name,
    repository: Name,
    branch: Name,
    path: Name,
    // how often the poll worker reads the file; push webhooks make a change arrive sooner
    pollIntervalSeconds: Schema.optionalWith(PolicyGroup.PollIntervalSeconds, { default: () => PolicyGroup.defaultPollIntervalSeconds })
  }))
})

const Group = Schema.Struct({
  name: Name,
  applyToAllRepos: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  notificationTeam: Schema.optionalWith(Schema.String, { default: () => "inherit" }),
  cooldownSeconds: Schema.optionalWith(Schema.NullOr(Organization.CooldownSeconds), { default: () => null }),
  phases: Schema.optionalWith(Schema.Array(Phase), { default: () => [] })
})

const Key = Schema.Struct({
  name: Name,
  secret: Schema.String.pipe(
    Schema.filter((s) => ApiKey.looksLikeSecret(s) || "must be 32 to 256 printable characters without spaces")
  ),
  role: Schema.optional(Permission.RoleName),
  permissions: Schema.optional(Schema.NonEmptyArray(Permission.Permission)),
  expiresInDays: ApiKey.ExpiresInDays
})

const Org = Schema.Struct({
  id: Schema.optional(Id.OrgId),
  name: Name,
  edition: oneOf(Organization.Edition, Organization.Edition.literals),
  grants: Schema.optionalWith(Schema.Array(Schema.Struct({ feature: Organization.Feature, expiresAt: Schema.optionalWith(Schema.NullOr(IsoDateTime.IsoDateTime), { default: () => null }) })), { default: () => [] }),
  defaultNotificationTeam: Schema.optional(Name),
  cooldownSeconds: Schema.optionalWith(Organization.CooldownSeconds, { default: () => 0 }),
  teams: Schema.optionalWith(Schema.Array(Team), { default: () => [] }),
  routinesWithoutTeam: Schema.optionalWith(Schema.Array(Routine), { default: () => [] }),
  vcsConnections: Schema.optionalWith(Schema.Array(Connection), { default: () => [] }),
  policyGroups: Schema.optionalWith(Schema.Array(Group), { default: () => [] }),
  apiKeys: Schema.optionalWith(Schema.Array(Key), { default: () => [] })
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

const formatPath = (path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>((acc, s) => typeof s === "number" ? `${acc}[${s}]` : `${acc}.${String(s)}`, "$")

const decode = Schema.decodeUnknownEither(SeedFile, { errors: "all", onExcessProperty: "error" })

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
      unique((c.fixture?.repositories ?? []).map((r) => r.externalRepoId), (j) => `${at}.vcsConnections[${i}].fixture.repositories[${j}].externalRepoId`, "externalRepoId")
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
        if (p.source === "internal" && p.file !== undefined) problems.push({ path: `${pat}.file`, message: "only external phases have a file" })
        if (p.source === "external" && p.file === undefined) problems.push({ path: `${pat}.file`, message: "an external phase needs its file" })
        if (p.file !== undefined && !connections.has(p.file.connection)) {
          problems.push({ path: `${pat}.file.connection`, message: `no VCS connection with externalAccountName ${JSON.stringify(p.file.connection)}` })
        }
      })
    })
    org.apiKeys.forEach((k, i) => {
      const kat = `${at}.apiKeys[${i}]`
      if ((k.role === undefined) === (k.permissions === undefined)) problems.push({ path: kat, message: "give exactly one of `role` or `permissions`" })
      // the message names the key, never the secret
      if (secrets.has(k.secret)) problems.push({ path: `${kat}.secret`, message: "the same secret is used by another key" })
      secrets.add(k.secret)
    })
  })
  return problems
}

/** Parses and validates a seed file's text; every problem at once. */
export const parse = (text: string): Either.Either<SeedFile, InvalidSeed> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Either.left(new InvalidSeed({ problems: [{ path: "$", message: "not valid JSON" }] }))
  }
  // text no store can hold is a problem of the file, found before any write (PostgreSQL refuses it)
  if (!JsonValue.withinDepth(json, JsonValue.maxDepth)) {
    return Either.left(new InvalidSeed({ problems: [{ path: "$", message: `nests more than ${JsonValue.maxDepth} levels` }] }))
  }
  const unstorable = JsonValue.unstorableFields(json)
  if (unstorable.length > 0) {
    return Either.left(new InvalidSeed({
      problems: unstorable.map((p) => ({ path: p.path === "(body)" ? "$" : `$.${p.path}`.replace(".[", "["), message: p.message }))
    }))
  }
  const decoded = decode(json)
  if (Either.isLeft(decoded)) {
    const problems = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({ path: formatPath(i.path), message: i.message }))
    // an optional field whose value failed also reports "Expected undefined" for the same path: noise
    const real = problems.filter((p) =>
      !(p.message.startsWith("Expected undefined, actual") && problems.some((q) => q !== p && q.path.startsWith(p.path)))
    )
    return Either.left(new InvalidSeed({ problems: real }))
  }
  const problems = crossCheck(decoded.right)
  return problems.length > 0 ? Either.left(new InvalidSeed({ problems })) : Either.right(decoded.right)
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
  const store = yield* Store
  const ids = yield* Ids
  const hasher = yield* SecretHasher
  const now = new Date(yield* Clock.currentTimeMillis)
  const next = <A>(kind: Id.Kind) => Effect.map(ids.next(kind), (id) => id as A)
  return yield* store.transaction(Effect.gen(function*() {
    const result: Array<SeededOrganization> = []
    for (const org of seed.organizations) {
      const orgId = org.id ?? (yield* next<Id.OrgId>("organization"))
      if (org.id !== undefined && Option.isSome(yield* store.organizations.get(org.id))) {
        result.push({ id: orgId, name: org.name, existing: true, teams: {}, routines: {}, vcsConnections: {}, policyGroups: {}, apiKeys: {} })
        continue
      }
      const teams: Record<string, Id.TeamId> = {}
      for (const team of org.teams) teams[team.name] = yield* next<Id.TeamId>("team")
      yield* store.organizations.insert({
        id: orgId,
        name: org.name,
        edition: org.edition,
        grants: org.grants,
        defaultNotificationTeamId: org.defaultNotificationTeam !== undefined ? teams[org.defaultNotificationTeam]! : null,
        cooldownSeconds: org.cooldownSeconds
      })
      const routines: Record<string, string> = {}
      for (const team of org.teams) {
        yield* store.teams.insert(orgId, { id: teams[team.name]!, name: team.name })
        for (const r of team.routines) {
          const id = yield* next<Id.RoutineId>("routine")
          routines[`${team.name}/${r.name}`] = id
          yield* store.routines.insert(orgId, { id, teamId: teams[team.name]!, name: r.name, active: r.active, intervalDays: r.intervalDays })
        }
      }
      for (const r of org.routinesWithoutTeam) {
        const id = yield* next<Id.RoutineId>("routine")
        routines[r.name] = id
        yield* store.routines.insert(orgId, { id, teamId: null, name: r.name, active: r.active, intervalDays: r.intervalDays })
      }
      const connections: Record<string, Id.VcsConnectionId> = {}
      for (const c of org.vcsConnections) {
        const id = yield* next<Id.VcsConnectionId>("vcsConnection")
        connections[c.externalAccountName] = id
        const settings: FixtureVcs.ConnectionSettings = c.fixture !== undefined
          ? {
            kind: "fixture",
            repositories: c.fixture.repositories,
            ...(c.fixture.webhookSecret !== undefined ? { webhookSecret: c.fixture.webhookSecret } : {})
          }
          : yield* apiSettings(c.api!)
        yield* store.vcsConnections.insert(orgId, { id, provider: c.provider, externalAccountName: c.externalAccountName, status: c.status }, settings)
      }
      const groups: Record<string, { id: string; phases: Record<string, string> }> = {}
      for (const g of org.policyGroups) {
        const id = yield* next<Id.PolicyGroupId>("policyGroup")
        const phases: Record<string, string> = {}
        const phaseRows = []
        for (const [position, p] of g.phases.entries()) {
          const phaseId = yield* next<Id.PhaseId>("phase")
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
        yield* store.policyGroups.insert(orgId, {
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
        const id = yield* next<Id.ApiKeyId>("apiKey")
        keys[k.name] = id
        yield* store.apiKeys.insert(orgId, {
          id,
          serviceAccountId: yield* next<Id.ServiceAccountId>("serviceAccount"),
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
      result.push({ id: orgId, name: org.name, existing: false, teams, routines, vcsConnections: connections, policyGroups: groups, apiKeys: keys })
    }
    return result
  }))
})
