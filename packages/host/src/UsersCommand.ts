/**
 * `image-policy users create` and `users set-password` (issue 17; docs/cli.md): members who sign in
 * to the web console. The password is read from stdin when something is piped there (a line; the
 * trailing newline is dropped), else generated and printed once in the JSON answer. Only the KDF
 * hash is stored; nothing here logs the password.
 */
import type { StoreConfig } from "@image-policy/adapters"
import { Id, Input, Member, OrganizationStore, Permission, Session, transaction, Workflows } from "@image-policy/core"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as App from "./App.js"
import * as ServeOptions from "./runtime/ServeOptions.js"

/** What the store opener provides: every service of the host (`App.services`). */
type Services = Layer.Success<ReturnType<typeof App.services>>

/** What the commands borrow from cli.ts (its failure type, its store opener, its quiet logger). */
export interface Cli<F> {
  readonly usage: (message: string) => F
  readonly failure: (message: string) => F
  readonly withStore: <A, E>(spec: StoreConfig.StoreSpec, use: Effect.Effect<A, E, Services>) => Effect.Effect<A, E | F>
  readonly quietLogs: Layer.Layer<never>
}

const cliCaller = (orgId: Id.OrgId, correlationId: string): Workflows.Roles.Grantor => ({
  orgId,
  actor: { kind: "system", name: "cli" },
  correlationId,
  // the operator at the command line holds every permission
  permissions: Permission.allPermissions
})

/** Piped stdin's first line, or `undefined` on a terminal or when nothing was piped. */
const readPiped: Effect.Effect<string | undefined> = Effect.promise(async () => {
  if (process.stdin.isTTY === true) return undefined
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "")
  return text === "" ? undefined : text
})

export const make = <F>(cli: Cli<F>) => {
  const org = Flag.String("org").pipe(Flag.withMetavar("ORG_ID"), Flag.withDescription("the member's organization"))
  const email = Flag.String("email").pipe(Flag.withMetavar("EMAIL"), Flag.withDescription("the member's email (the sign-in name)"))

  /**
   * The password piped to the command (checked before the store opens: one too short is a usage error
   * naming it), or `undefined`: then one is generated inside the store's services (`generated`).
   */
  const piped = Effect.gen(function*() {
    const text = yield* readPiped
    if (text !== undefined && Result.isFailure(Schema.decodeUnknownResult(Session.NewPassword)(text))) {
      return yield* Effect.fail(
        cli.usage(`password (stdin): must be ${Session.minPasswordLength} to ${Session.maxPasswordLength} characters`)
      )
    }
    return text
  })
  const generated = (text: string | undefined) =>
    text === undefined
      ? Effect.map(Workflows.Sessions.generatePassword, (password) => ({ password, generated: true }))
      : Effect.succeed({ password: text, generated: false })

  const orgIdOf = (text: string) => {
    const orgId = Schema.decodeUnknownOption(Id.OrgId)(text)
    return Option.isNone(orgId)
      ? Effect.fail(cli.usage(`--org: ${JSON.stringify(text)} is not an organization id (org_…)`))
      : Effect.succeed(orgId.value)
  }
  const orgMustExist = (spec: StoreConfig.StoreSpec, orgId: Id.OrgId) =>
    OrganizationStore.use(({ organizations }) =>
      Effect.flatMap(organizations.get(orgId), (found) =>
        Option.isNone(found)
          ? Effect.fail(cli.failure(`no organization ${orgId} in ${ServeOptions.describeStore(spec)}`))
          : Effect.void)
    )

  const create = Command.make(
    "create",
    {
      store: ServeOptions.store,
      org,
      email,
      name: Flag.String("name").pipe(
        Flag.withMetavar("NAME"),
        Flag.withDescription("the member's name (default: the email)"),
        Flag.optional
      ),
      role: Flag.String("role").pipe(
        Flag.withMetavar("ROLE"),
        Flag.withDescription(
          "a built-in role (Owner, Security Administrator, Policy Automation, Read Only) or a custom role's id (or give --permission)"
        ),
        Flag.optional
      ),
      permissions: Flag.Literals("permission", Permission.allPermissions).pipe(
        Flag.withDescription("a permission; repeat for several (instead of --role)"),
        Flag.atLeast(0)
      )
    },
    (flags) =>
      Effect.gen(function*() {
        if (Option.isSome(flags.role) === flags.permissions.length > 0) {
          return yield* Effect.fail(cli.usage("users create: give exactly one of --role or --permission (repeatable)"))
        }
        const orgId = yield* orgIdOf(flags.org)
        const body = {
          email: flags.email,
          name: Option.getOrElse(flags.name, () => flags.email),
          ...(Option.isSome(flags.role) ? { role: flags.role.value } : { permissions: flags.permissions })
        }
        const request = Schema.decodeUnknownResult(Member.MemberCreateRequest)(body)
        if (Result.isFailure(request)) {
          return yield* Effect.fail(
            cli.usage(`invalid user: ${Input.fieldErrors(request.failure).map((e) => `${e.path}: ${e.message}`).join("; ")}`)
          )
        }
        const text = yield* piped
        const { created, secret } = yield* cli.withStore(
          flags.store,
          Effect.gen(function*() {
            yield* orgMustExist(flags.store, orgId)
            const secret = yield* generated(text)
            const caller = cliCaller(orgId, "cli-users-create")
            // the member and its password together: a failure leaves neither
            const created = yield* transaction(Effect.gen(function*() {
              const member = yield* Workflows.Members.createMember(caller, request.success)
              yield* Workflows.Sessions.setPassword(caller, member.id, secret.password)
              return member
            })).pipe(Effect.mapError((e) => cli.failure(`users create: ${e.message !== "" ? e.message : e._tag}`)))
            return { created, secret }
          })
        )
        // a generated password is printed here once; the store keeps only its hash
        yield* Console.log(
          JSON.stringify({ ...created, organizationId: orgId, ...(secret.generated ? { password: secret.password } : {}) }, null, 2)
        )
      }).pipe(Effect.provide(cli.quietLogs))
  ).pipe(Command.withDescription("add a member who signs in to the web console; the password from stdin, else generated and printed once"))

  const setPassword = Command.make(
    "set-password",
    { store: ServeOptions.store, org, email },
    (flags) =>
      Effect.gen(function*() {
        const orgId = yield* orgIdOf(flags.org)
        const text = yield* piped
        const { member, secret } = yield* cli.withStore(
          flags.store,
          Effect.gen(function*() {
            yield* orgMustExist(flags.store, orgId)
            const found = yield* Workflows.Members.findMemberByEmail(orgId, flags.email)
            if (Option.isNone(found)) return yield* Effect.fail(cli.failure(`no member with this email in ${orgId}`))
            const member = found.value
            const secret = yield* generated(text)
            yield* Workflows.Sessions.setPassword(cliCaller(orgId, "cli-users-set-password"), member.id, secret.password).pipe(
              Effect.mapError((e) => cli.failure(`users set-password: ${e.message !== "" ? e.message : e._tag}`))
            )
            return { member, secret }
          })
        )
        // every session of the member ended with the change
        yield* Console.log(
          JSON.stringify(
            { id: member.id, email: member.email, organizationId: orgId, ...(secret.generated ? { password: secret.password } : {}) },
            null,
            2
          )
        )
      }).pipe(Effect.provide(cli.quietLogs))
  ).pipe(Command.withDescription("set a member's password (ends its sessions); from stdin, else generated and printed once"))

  return Command.make(
    "users",
    {},
    () => Effect.fail(cli.usage("give a subcommand: users create or users set-password (see image-policy users --help)"))
  ).pipe(
    Command.withDescription("manage members who sign in to the web console (users create, users set-password)"),
    Command.withSubcommands([create, setPassword])
  )
}
