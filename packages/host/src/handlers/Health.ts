import { Api } from "@image-policy/client/api/Api"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Problems from "../http/Problems.js"
import * as Readiness from "../Readiness.js"

export const HealthHandlers = HttpApiBuilder.group(Api, "health", (handlers) =>
  handlers
    .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
    .handle("readyz", () =>
      Effect.flatMap(Readiness.checks, (checks) => {
        const failing = checks.filter((check) => !check.ok)
        return failing.length === 0
          ? Effect.succeed({ status: "ready" as const, checks })
          : Effect.fail(Problems.make({
            status: 503,
            type: "/problems/not-ready",
            detail: `not ready: ${failing.map((check) => check.name).join(", ")}`,
            errors: failing.map((check) => ({ path: check.name, message: check.detail }))
          }))
      })))
