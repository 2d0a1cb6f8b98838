import * as Context from "effect/Context"

/**
 * What the request lifecycle knows about the request in flight: its id (also the correlation id of
 * audit rows, events and problems) and the route template once routing has matched it (for logs).
 */
export class RequestInfo extends Context.Tag("@image-policy/host/RequestInfo")<RequestInfo, {
  readonly id: string
  route: string | undefined
}>() {}
