/** The one shape of every organization handler: the caller, one workflow, its problems. */
import type { Problem } from "../api/Problem.js"
import { CurrentCaller } from "../api/Security.js"
import * as Problems from "../http/Problems.js"
import * as Effect from "effect/Effect"

type Caller = typeof CurrentCaller.Service

export const withCaller = <A, E, R>(f: (caller: Caller) => Effect.Effect<A, E, R>): Effect.Effect<A, Problem, R | CurrentCaller> =>
  Problems.orProblem(Effect.flatMap(CurrentCaller, f))
