/**
 * `GET /api/v1/openapi.json`: generated from the `Api` definition, then finished in one pass so the
 * document says exactly what the server does: every error answer is `application/problem+json`
 * (the framework's own decode-error shape never leaves the server, see http/Lifecycle.ts).
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { Api } from "./Api.js"

const problemRef = { $ref: "#/components/schemas/Problem" }

export const make = (options: { readonly publicUrl?: string | undefined } = {}): Record<string, unknown> => {
  const spec = structuredClone(OpenApi.fromApi(Api)) as any
  for (const item of Object.values(spec.paths ?? {}) as Array<Record<string, any>>) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {}) as Array<[string, any]>) {
        if (Number(status) < 400) continue
        response.content = { "application/problem+json": { schema: problemRef } }
        if (status === "429") {
          response.headers = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } } }
        }
      }
      if (operation.security?.length) {
        operation.responses["500"] = {
          description: "Unexpected error (reported with a correlationId)",
          content: { "application/problem+json": { schema: problemRef } }
        }
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec.components?.schemas?.[name]
  for (const name of Object.keys(spec.components?.schemas ?? {})) {
    if (/^Problem\d{3}$/.test(name)) delete spec.components.schemas[name]
  }
  if (options.publicUrl) spec.servers = [{ url: options.publicUrl }]
  return spec
}
