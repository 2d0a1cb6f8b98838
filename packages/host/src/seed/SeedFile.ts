/**
 * The seed file (contracts 2): its schema and the checks a schema cannot express. A seed is
 * validated whole before anything is written, and every problem is reported with its JSON path.
 * Settings an organization can change through the API (a routine's `active`, a group's routing and
 * cooldown, ...) are optional here rather than defaulted: `seed --update` changes only what the
 * seed says, and the loader applies the defaults when it creates.
 *
 * An `api` connection's token and push webhook secret are given either as the name of an
 * environment variable (`tokenEnv`, `webhookSecretEnv`) or as the value itself (`token`,
 * `webhookSecret`): a value is sealed with the core's `SecretBox` on load and only the sealed form
 * is stored. Problems about those fields never repeat what was given.
 */
import { FixtureVcs } from "@image-policy/adapters"
import {
  ApiKey,
  Id,
  Input,
  IsoDateTime,
  JsonValue,
  Member,
  Organization,
  Permission,
  PolicyGroup,
  Role,
  Session,
  VcsConnection
} from "@image-policy/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/** A key that may be left out of the file, with the value it then has. */
const withDefault = <S extends Schema.Top>(schema: S, value: S["Type"]) =>
  schema.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(value)))

const Name = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))

const Routine = Schema.Struct({
  name: Name,
  active: Schema.optionalKey(Schema.Boolean),
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
  status: Schema.optionalKey(VcsConnection.ConnectionStatus),
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
    pollIntervalSeconds: Schema.optionalKey(PolicyGroup.PollIntervalSeconds)
  }))
})

const Group = Schema.Struct({
  name: Name,
  applyToAllRepos: Schema.optionalKey(Schema.Boolean),
  notificationTeam: Schema.optionalKey(Schema.String),
  cooldownSeconds: Schema.optionalKey(Schema.NullOr(Organization.CooldownSeconds)),
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

/** A custom role (members and API keys name it by `name` in the seed). */
const CustomRole = Schema.Struct({ name: Name, permissions: Schema.NonEmptyArray(Permission.Permission) })

/**
 * A member. `role` names a built-in role or one of the seed's `roles`. `password` (for tests and
 * demos) lets the member sign in to the web console: 12 to 1024 characters, hashed on load, never
 * echoed in a problem.
 */
const User = Schema.Struct({
  email: Member.Email,
  name: Schema.optionalKey(Name),
  role: Schema.optionalKey(Name),
  permissions: Schema.optionalKey(Schema.NonEmptyArray(Permission.Permission)),
  password: Schema.optionalKey(
    quietString(
      `must be a string of ${Session.minPasswordLength} to ${Session.maxPasswordLength} characters`,
      (a) => Schema.isMinLength(Session.minPasswordLength, a),
      (a) => Schema.isMaxLength(Session.maxPasswordLength, a)
    )
  )
})

const Grant = Schema.Struct({ feature: Organization.Feature, expiresAt: withDefault(Schema.NullOr(IsoDateTime.IsoDateTime), null) })

const Org = Schema.Struct({
  id: Schema.optionalKey(Id.OrgId),
  name: Name,
  edition: Organization.Edition,
  grants: Schema.optionalKey(Schema.Array(Grant)),
  defaultNotificationTeam: Schema.optionalKey(Name),
  cooldownSeconds: Schema.optionalKey(Organization.CooldownSeconds),
  teams: withDefault(Schema.Array(Team), []),
  routinesWithoutTeam: withDefault(Schema.Array(Routine), []),
  vcsConnections: withDefault(Schema.Array(Connection), []),
  policyGroups: withDefault(Schema.Array(Group), []),
  apiKeys: withDefault(Schema.Array(Key), []),
  roles: withDefault(Schema.Array(CustomRole), []),
  users: withDefault(Schema.Array(User), [])
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
  // `key` says when two values are the same (e.g. role names ignoring case); the message shows the value as written
  const unique = (values: ReadonlyArray<string>, path: (i: number) => string, what: string, key = (v: string) => v) => {
    const seen = new Set<string>()
    values.forEach((v, i) => {
      if (seen.has(key(v))) problems.push({ path: path(i), message: `duplicate ${what} ${JSON.stringify(v)}` })
      seen.add(key(v))
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
      if (
        g.notificationTeam !== undefined && g.notificationTeam !== "inherit" && g.notificationTeam !== "none" &&
        !teams.has(g.notificationTeam)
      ) {
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
    // role names compare as the roles' store compares them (Role.nameKey: case and outer spaces ignored)
    unique(org.roles.map((r) => r.name), (i) => `${at}.roles[${i}].name`, "role", Role.nameKey)
    const roles = new Set(org.roles.map((r) => r.name))
    org.roles.forEach((r, i) => {
      if (Role.isBuiltInName(r.name)) {
        problems.push({ path: `${at}.roles[${i}].name`, message: "is the name of a built-in role" })
      }
    })
    // the members' store compares emails ignoring case
    unique(org.users.map((u) => u.email.toLowerCase()), (i) => `${at}.users[${i}].email`, "email")
    org.users.forEach((u, i) => {
      const uat = `${at}.users[${i}]`
      if ((u.role === undefined) === (u.permissions === undefined)) {
        problems.push({ path: uat, message: "give exactly one of `role` or `permissions`" })
      }
      if (u.role !== undefined && !roles.has(u.role) && !Permission.RoleName.literals.some((n) => n === u.role)) {
        problems.push({ path: `${uat}.role`, message: "must be a built-in role or the name of one of the seed's roles" })
      }
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

export type SeedOrganization = SeedFile["organizations"][number]

/**
 * A valid seed the organization refuses as it stands (`seed --update`: a group that cannot apply to
 * all repositories while some have it assigned, an email another member has, ...): the workflow's
 * own reason, at the seed's path. The transaction fails, so nothing of the seed is kept.
 */
export class SeedRejected extends Data.TaggedError("SeedRejected")<{ readonly path: string; readonly reason: string }> {
  override get message() {
    return `the seed cannot be applied (nothing was written): ${this.path}: ${this.reason}`
  }
}

/** Runs a workflow for the seed's `path`, its user-facing failure as a `SeedRejected`. */
export const at = (path: string) => <A, E extends { readonly _tag: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (e) => new SeedRejected({ path, reason: e.message !== "" ? e.message : e._tag }))
