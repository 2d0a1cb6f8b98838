/**
 * `GET /api/v1/openapi.json`: generated from the `Api` definition, then finished in one pass so the
 * document says exactly what the server does: every error answer is `application/problem+json`
 * with the one `Problem` schema, 429 carries Retry-After, and every organization route may answer
 * 500 with a correlation id. `servers` is never empty, and an operation without its own
 * description says who may call it (from `x-required-permissions`), so every operation has a
 * summary (its endpoint's) and a description.
 */
import { Api } from "@image-policy/client/api/Api"
import { OpenApi } from "effect/http-api"

const problemRef = { $ref: "#/components/schemas/Problem" }

const renameRefs = (node: unknown, from: string, to: string): void => {
  if (Array.isArray(node)) return node.forEach((item) => renameRefs(item, from, to))
  if (typeof node !== "object" || node === null) return
  const record = node as Record<string, unknown>
  if (record.$ref === from) record.$ref = to
  Object.values(record).forEach((value) => renameRefs(value, from, to))
}

const who = (operation: any): string => {
  const permissions: ReadonlyArray<string> | undefined = operation["x-required-permissions"]
  if (permissions?.length) return `Needs an API key holding ${permissions.map((p) => `\`${p}\``).join(" and ")}.`
  return operation.security?.length ? "Needs an API key." : "No API key needed."
}

/** `publicUrl`: where clients reach the service (`--public-url`); `/` (the document's own origin) when unknown. */
export const make = (options: { readonly publicUrl?: string | undefined } = {}): Record<string, unknown> => {
  const spec = structuredClone(
    OpenApi.fromApi(
      Api.annotate(OpenApi.Servers, [{ url: options.publicUrl ?? "/", description: "this image-policy service" }])
    )
  ) as any
  // a schema with a transformation is named after its encoded side (`ScanRequestEncoded`, `ProblemEncoded`):
  // clients know these components by their own names
  const schemas: Record<string, unknown> = spec.components?.schemas ?? {}
  for (const name of Object.keys(schemas)) {
    const plain = name.replace(/Encoded$/, "")
    if (plain === name || plain in schemas) continue
    schemas[plain] = schemas[name]
    delete schemas[name]
    renameRefs(spec, `#/components/schemas/${name}`, `#/components/schemas/${plain}`)
  }
  for (const item of Object.values(spec.paths ?? {}) as Array<Record<string, any>>) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== "object" || operation === null || operation.responses === undefined) continue
      operation.description ??= `${operation.summary}. ${who(operation)}`
      for (const [status, response] of Object.entries(operation.responses) as Array<[string, any]>) {
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
  return spec
}
