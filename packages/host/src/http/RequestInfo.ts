/**
 * What the request lifecycle knows about the request in flight: its id (also the correlation id of
 * audit rows, events and problems) and the route template once the API matched it (for the access
 * log). The lifecycle (Lifecycle.ts) provides it for the whole request; the endpoint middleware
 * (Problems.ts) records the route, which the lifecycle reads back once the response is made.
 */
import * as Context from "effect/Context"

export interface Info {
  readonly id: string
  route: string | undefined
}

/** `undefined` outside a request the lifecycle handles (an embedder's own router, a unit test). */
export const RequestInfo = Context.Reference<Info | undefined>("@image-policy/host/RequestInfo", {
  defaultValue: () => undefined
})
