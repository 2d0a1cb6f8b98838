/**
 * `GET /api/v1/openapi.json`: generated from the `Api` definition, then finished in one pass so the
 * document says exactly what the server does: every error answer is `application/problem+json`
 * (the framework's own decode-error shape never leaves the server, see http/Lifecycle.ts).
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { Api } from "./Api.js"

const problemRef = { $ref: "#/components/schemas/Problem" }

/**
 * Effect's JSON Schema of its built-in schemas (`Schema.Object`, `Schema.Never`, ...) carries a
 * fixed `$id` such as `/schemas/object`; used twice, the document defines one `$id` twice and is no
 * longer valid OpenAPI 3.1. Those ids identify nothing a client needs: drop them.
 */
const dropBuiltInIds = (node: unknown): void => {
  if (Array.isArray(node)) return node.forEach(dropBuiltInIds)
  if (typeof node !== "object" || node === null) return
  const record = node as Record<string, unknown>
  if (typeof record.$id === "string" && record.$id.startsWith("/schemas/")) delete record.$id
  Object.values(record).forEach(dropBuiltInIds)
}

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
  dropBuiltInIds(spec)
  if (options.publicUrl) spec.servers = [{ url: options.publicUrl }]
  return spec
}
