/**
 * The background workers this process started, for readiness (`GET /readyz`). The runtime that
 * forks a worker registers its fiber here; a worker whose fiber has ended (a defect it could not
 * survive) is no longer running, so the host stops reporting ready. A host that starts no worker
 * (the bare web handler, a host whose workers run elsewhere) has none to report.
 */
import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"

export interface WorkerStatus {
  readonly name: string
  readonly running: boolean
}

export interface Registry {
  readonly add: (name: string, fiber: Fiber.Fiber<unknown, unknown>) => void
  readonly status: () => ReadonlyArray<WorkerStatus>
}

export const make = (): Registry => {
  const fibers: Array<readonly [string, Fiber.Fiber<unknown, unknown>]> = []
  return {
    add: (name, fiber) => void fibers.push([name, fiber]),
    status: () => fibers.map(([name, fiber]) => ({ name, running: fiber.pollUnsafe() === undefined }))
  }
}

/** The registry of this process; by default an empty one (no worker started, none expected). */
export const RunningWorkers = Context.Reference<Registry>("@image-policy/host/RunningWorkers", { defaultValue: make })
