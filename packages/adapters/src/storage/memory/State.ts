/**
 * The memory stores' shared state: every organization's rows in plain maps, and the one
 * transaction all the memory stores of one layer write through.
 *
 * Transactions hold the state's one lock (a semaphore of one permit) for their whole duration and
 * record an undo step for every write; when the transaction fails the undo steps run in reverse,
 * so a failed workflow leaves no state, no audit row and no outbox row. Reads and writes outside a
 * transaction wait for the lock while a transaction holds it, so nobody reads another fiber's
 * uncommitted writes and a rollback never clobbers a concurrent write. While no transaction holds
 * it they run at once, without taking it: every read and write is one synchronous function on a
 * single JS thread, so with no transaction open the maps hold only committed rows and nothing can
 * roll back under them (on every request, a permit would cost more than the read itself).
 */
import type { Id, Page, PageRequest } from "@image-policy/core"
import {
  type ApiKey,
  type Assignment,
  type Audit,
  Cursor,
  type Mapping,
  type Member,
  type Organization,
  type Outbox,
  type PolicyGroup,
  type Remediation,
  type Repository,
  type Role,
  type Routine,
  type Scan,
  type Session,
  type SnoozeRequest,
  type Team,
  Text,
  type VcsConnection,
  type Webhook
} from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import type * as Storable from "../Storable.js"

export interface WebhookDeliveryRow extends Outbox.WebhookDelivery {
  readonly orgId: Id.OrgId
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
}

export interface ScanRow extends Scan.BranchScan {
  readonly leaseWorker: string | null
  readonly leaseUntil: number | null
}

export interface OrgState {
  readonly org: Organization.Organization
  readonly teams: Map<string, Team.Team>
  readonly routines: Map<string, Routine.Routine>
  readonly connections: Map<string, { readonly connection: VcsConnection.VcsConnection; readonly settings: unknown }>
  readonly repositories: Map<string, Repository.Repository & { readonly vcsConnectionId: Id.VcsConnectionId }>
  readonly groups: Map<string, PolicyGroup.PolicyGroup>
  /** keyed by `phaseId|key` */
  readonly drafts: Map<string, Mapping.DraftMapping & { readonly groupId: Id.PolicyGroupId }>
  readonly published: Map<string, ReadonlyArray<PolicyGroup.PublishedMapping>>
  readonly assignments: Map<string, ReadonlyArray<Assignment.RepositoryAssignment>>
  readonly apiKeys: Map<string, ApiKey.ApiKey>
  readonly webhooks: Map<string, Webhook.WebhookDestination>
  readonly snoozes: Map<string, SnoozeRequest.SnoozeRequest>
  readonly audit: Array<Audit.AuditEvent>
  readonly events: Map<string, Outbox.OutboxEvent>
  readonly attempts: Array<Outbox.WebhookDeliveryAttempt>
  readonly scans: Map<string, ScanRow>
  /** The branch's current findings in the findings order, keyed by `repositoryId|branchName`. */
  readonly findings: Map<string, ReadonlyArray<Storable.PositionedFinding>>
  readonly remediations: Map<string, Remediation.RemediationRequest>
  readonly members: Map<string, Member.Member>
  readonly roles: Map<string, Role.CustomRole>
  /** Password hashes by member id (issue 17); removed with their member. */
  readonly credentials: Map<string, string>
  /** Browser sessions by id; removed with their member. */
  readonly sessions: Map<string, Session.StoredSession>
}

/** How a write records the step that undoes it (a no-op outside a transaction). */
export type Undo = (step: () => void) => void

// sort keys compare by code point, as PostgreSQL's COLLATE "C" compares their UTF-8 bytes, so every
// store lists names and paths in one order
const compareKeys = ([ka, ia]: readonly [string, string], [kb, ib]: readonly [string, string]): number =>
  Text.compareCodePoints(ka, kb) || Text.compareCodePoints(ia, ib)

export const sortBy = <A>(rows: Iterable<A>, key: (a: A) => readonly [string, string], desc = false): Array<A> =>
  [...rows].sort((a, b) => {
    const c = compareKeys(key(a), key(b))
    return desc ? -c : c
  })

/** Keyset pagination over rows already sorted by `key` (the same order the SQL store uses). */
export const paginate = <A>(
  sorted: ReadonlyArray<A>,
  key: (a: A) => readonly [string, string],
  page: PageRequest,
  desc = false
): Page<A> => {
  let rows = sorted
  if (page.cursor !== undefined) {
    const position = Result.getOrThrowWith(Cursor.decodeCursor(page.cursor), (e) => e)
    const after = (a: A) => {
      const c = compareKeys(key(a), [String(position.sortKey), position.id])
      return desc ? c < 0 : c > 0
    }
    rows = rows.filter(after)
  }
  const items = rows.slice(0, page.limit)
  const last = items[items.length - 1]
  const nextCursor = rows.length > page.limit && last !== undefined
    ? Cursor.encodeCursor({ sortKey: key(last)[0], id: key(last)[1] })
    : null
  return { items, nextCursor }
}

export const byName = (a: { readonly name: string; readonly id: string }) => [a.name, a.id] as const
export const byCreated = (a: { readonly createdAt: string; readonly id: string }) => [a.createdAt, a.id] as const

/** Repository ids hold no `|`, so the key is unambiguous whatever the branch name holds. */
export const branchKey = (repositoryId: string, branchName: string) => `${repositoryId}|${branchName}`

/** Sets `map[key] = value`, recording how to undo it. */
export const put = <K, V>(undo: Undo, map: Map<K, V>, key: K, value: V) => {
  const had = map.has(key)
  const previous = map.get(key)
  map.set(key, value)
  undo(() => (had ? map.set(key, previous as V) : map.delete(key)))
}

export const remove = <K, V>(undo: Undo, map: Map<K, V>, key: K) => {
  if (!map.has(key)) return
  const previous = map.get(key) as V
  map.delete(key)
  undo(() => map.set(key, previous))
}

export const push = <A>(undo: Undo, array: Array<A>, value: A) => {
  array.push(value)
  undo(() => {
    const i = array.lastIndexOf(value)
    if (i >= 0) array.splice(i, 1)
  })
}

export const emptyOrg = (org: Organization.Organization): OrgState => ({
  org,
  teams: new Map(),
  routines: new Map(),
  connections: new Map(),
  repositories: new Map(),
  groups: new Map(),
  drafts: new Map(),
  published: new Map(),
  assignments: new Map(),
  apiKeys: new Map(),
  webhooks: new Map(),
  snoozes: new Map(),
  audit: [],
  events: new Map(),
  attempts: [],
  scans: new Map(),
  findings: new Map(),
  remediations: new Map(),
  members: new Map(),
  roles: new Map(),
  credentials: new Map(),
  sessions: new Map()
})

/** One memory store's rows and the operations every memory store module runs them through. */
export interface State {
  readonly orgs: Map<string, OrgState>
  /** Every organization's deliveries, keyed by `eventId|webhookId` (claims run over all of them). */
  readonly deliveries: Map<string, WebhookDeliveryRow>
  /** Runs `effect` atomically; nested calls join the outer transaction (the `Transaction` port). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Runs a synchronous write inside the caller's transaction, or outside any. */
  readonly run: <A>(f: (undo: Undo) => A) => Effect.Effect<A>
  /**
   * Runs a synchronous read: inside the caller's transaction, or outside any (nothing uncommitted
   * to see), so it waits while another fiber's transaction is open.
   */
  readonly read: <A>(f: () => A) => Effect.Effect<A>
  readonly state: (orgId: string) => OrgState | undefined
  /** The organization's state; a write to an organization that does not exist is a defect. */
  readonly need: (orgId: string) => OrgState
  readonly getIn: <V>(orgId: string, pick: (s: OrgState) => Map<string, V>, id: string) => Effect.Effect<Option.Option<V>>
  readonly valuesOf: <V>(orgId: string, pick: (s: OrgState) => Map<string, V>) => Array<V>
}

let instances = 0

export const make = (): State => {
  const orgs = new Map<string, OrgState>()
  const deliveries = new Map<string, WebhookDeliveryRow>()
  /**
   * The undo log of the transaction the fiber runs in (`null`: none). One reference per state
   * instance (its key is the reference's identity), so a transaction on one memory store never
   * makes another store's writes skip that store's lock.
   */
  const UndoLog = Context.Reference<Array<() => void> | null>(
    `@image-policy/adapters/MemoryStore/undoLog/${instances++}`,
    { defaultValue: () => null }
  )
  /** The state's one lock, held by each transaction for its whole body. */
  const lock = Semaphore.makeUnsafe(1)
  /**
   * Whether a transaction holds the lock (its writes may be uncommitted). Set once it has the
   * permit, cleared after it committed or rolled back, before it releases the permit.
   */
  let transactionOpen = false
  /** Runs the synchronous `f` outside any transaction: at once, or once the open transaction ended. */
  // called from inside `Effect.withFiber` (run, read): the check and `f` run in that one synchronous
  // step, so no transaction can open between them
  const outside = <A>(f: () => A): Effect.Effect<A> => transactionOpen ? lock.withPermit(Effect.sync(f)) : Effect.succeed(f())
  const noUndo = () => {}

  const run = <A>(f: (undo: Undo) => A): Effect.Effect<A> =>
    Effect.withFiber((fiber) => {
      const log = fiber.getRef(UndoLog)
      return log !== null ? Effect.sync(() => f((step) => log.push(step))) : outside(() => f(noUndo))
    })

  const read = <A>(f: () => A): Effect.Effect<A> =>
    Effect.withFiber((fiber) => fiber.getRef(UndoLog) !== null ? Effect.sync(f) : outside(f))

  const state = (orgId: string): OrgState | undefined => orgs.get(orgId)
  const need = (orgId: string): OrgState => {
    const s = orgs.get(orgId)
    if (s === undefined) throw new Error(`memory store: organization ${orgId} does not exist`)
    return s
  }

  /** Runs a failed transaction's undo steps in reverse; answers the defect of one that threw, if one did. */
  const undoAll = (log: ReadonlyArray<() => void>): Cause.Cause<never> | undefined => {
    try {
      for (let i = log.length - 1; i >= 0; i--) log[i]!()
      return undefined
    } catch (defect) {
      return Cause.die(defect)
    }
  }

  /**
   * Holds the lock for the whole body. A failed (or interrupted) body's undo steps run in one
   * synchronous step before the lock is released, so no read sees a half-undone state. Fibers the
   * body forks inherit the undo log with the rest of its context.
   */
  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => {
      if (fiber.getRef(UndoLog) !== null) return effect // nested: joins the outer transaction
      return lock.withPermit(Effect.uninterruptibleMask((restore) => {
        const log: Array<() => void> = []
        transactionOpen = true
        return Effect.matchCauseEffect(restore(Effect.provideService(effect, UndoLog, log)), {
          onFailure: (cause) => {
            const defect = undoAll(log)
            transactionOpen = false
            return Effect.failCause(defect ? Cause.combine(cause, defect) : cause)
          },
          onSuccess: (value) => {
            transactionOpen = false
            return Effect.succeed(value)
          }
        })
      }))
    })

  return {
    orgs,
    deliveries,
    transaction,
    run,
    read,
    state,
    need,
    getIn: (orgId, pick, id) => read(() => Option.fromNullishOr(state(orgId) && pick(state(orgId)!).get(id))),
    valuesOf: (orgId, pick) => {
      const s = state(orgId)
      return s ? [...pick(s).values()] : []
    }
  }
}
