/**
 * Liveness and readiness for operators and orchestrators (issue 16): served at the root
 * (`/healthz`, `/readyz`), outside `/api/v1`, without a key, and answering no secret.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { problemFor } from "./Problem.js"

export const ReadinessCheck = Schema.Struct({
  name: Schema.Literals(["store", "migrations", "workers"]),
  ok: Schema.Boolean,
  detail: Schema.String
}).annotate({ identifier: "ReadinessCheck" })

export const Problem503NotReady = problemFor(
  503,
  "Not ready: `errors` names each failing check (`store`, `migrations`, `workers`) with its state"
)

export const HealthGroup = HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz", {
      success: Schema.Struct({ status: Schema.Literal("ok") })
    })
      .annotate(OpenApi.Summary, "Liveness: the process answers")
      .annotate(
        OpenApi.Description,
        "Answers 200 while the process serves HTTP; checks nothing else, so a restart is the remedy only when this fails."
      ),
    HttpApiEndpoint.get("readyz", "/readyz", {
      success: Schema.Struct({ status: Schema.Literal("ready"), checks: Schema.Array(ReadinessCheck) }),
      error: Problem503NotReady
    })
      .annotate(OpenApi.Summary, "Readiness: store, migrations and workers")
      .annotate(
        OpenApi.Description,
        "200 with every check when the store answers a query, its migrations are current and every worker this process " +
          "started still runs; otherwise 503 problem JSON naming each failing check. Take the host out of rotation while it answers 503."
      )
  )
  .annotate(OpenApi.Description, "Liveness and readiness probes (no key)")
