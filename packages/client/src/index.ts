/**
 * `@image-policy/client`: the `/api/v1` definition (`Api`, also under `@image-policy/client/api/<Module>`)
 * and the typed client made from it.
 */
export { Api } from "./api/Api.js"
export { Problem } from "./api/Problem.js"
export * as ApiClient from "./Client.js"
export * as DecisionClient from "./DecisionClient.js"
export * as DecisionRpcs from "./rpc/Decisions.js"
export * as DecisionFraming from "./rpc/Ndjson.js"
