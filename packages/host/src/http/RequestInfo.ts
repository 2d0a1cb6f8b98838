import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

/**
 * What the request lifecycle knows about the request in flight: its id (also the correlation id of
 * audit rows, events and problems) and the route template once routing has matched it (for logs).
 */
export interface RequestInfo {
  readonly id: string
  route: string | undefined
}

// Kept beside the request rather than in its Effect context: adding a service copies the request's
// whole context (every store and adapter service) once per request, the largest fixed cost the
// lifecycle had. Keyed by the runtime's own request object (Node's IncomingMessage, the web
// Request), which every view of the request shares: the router's and the body guard's copies too.
const infos = new WeakMap<object, RequestInfo>()

const keyOf = (request: HttpServerRequest.HttpServerRequest): object =>
  typeof request.source === "object" && request.source !== null ? request.source : request

/** Records what the lifecycle knows of `request` (once, when it starts handling it). */
export const set = (request: HttpServerRequest.HttpServerRequest, info: RequestInfo): void => {
  infos.set(keyOf(request), info)
}

/** What the lifecycle recorded of `request`, if the request went through it. */
export const get = (request: HttpServerRequest.HttpServerRequest): RequestInfo | undefined => infos.get(keyOf(request))
