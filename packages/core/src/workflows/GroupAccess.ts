/** A policy group as workflows reach it: by the id in a path. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { PolicyGroupId } from "../Id.js"
import { PolicyGroupNotFound } from "../PolicyGroup.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import type { Caller } from "./Caller.js"

/** The group named in a path, or `PolicyGroupNotFound` (404). */
export const loadGroup = (caller: Caller, groupId: PolicyGroupId) =>
  PolicyStore.use(({ policyGroups }) =>
    Effect.flatMap(
      policyGroups.get(caller.orgId, groupId),
      Option.match({
        onNone: () => Effect.fail(new PolicyGroupNotFound({ policyGroupId: groupId })),
        onSome: Effect.succeed
      })
    )
  )
