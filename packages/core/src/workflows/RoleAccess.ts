/** A role as workflows reach it when a body names one (a new API key's or member's `role`). */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { RoleId } from "../Id.js"
import type { Permission } from "../Permission.js"
import { AccessStore } from "../ports/AccessStore.js"
import * as Role from "../Role.js"
import { type Caller, InvalidReferenceInBody } from "./Caller.js"

export interface NamedRole {
  /** The custom role, `null` for a built-in one. */
  readonly custom: Role.CustomRole | null
  readonly permissions: ReadonlyArray<Permission>
}

/**
 * The role a body names at `path`: a built-in one, or a custom role of this organization, locked
 * until the transaction ends so it cannot be deleted under its new holder. An unknown custom role
 * is a 400 naming `path` (contracts 4: an unknown id inside a body).
 */
export const roleInBody = (
  caller: Caller,
  role: Role.RoleRef,
  path: string
): Effect.Effect<NamedRole, InvalidReferenceInBody, AccessStore> =>
  Role.isBuiltIn(role)
    ? Effect.succeed({ custom: null, permissions: Role.permissionsOf(role, [], null) })
    : AccessStore.use(({ roles }) =>
      Effect.flatMap(
        roles.lock(caller.orgId, role as RoleId),
        Option.match({
          onNone: () => Effect.fail(new InvalidReferenceInBody({ path, message: `no custom role ${role} in this organization` })),
          onSome: (custom) => Effect.succeed({ custom, permissions: custom.permissions })
        })
      )
    )
