/**
 * The memory store: every organization's rows in plain maps, for embedding and fast tests.
 *
 * Transactions hold the store's one lock (a semaphore of one permit) for their whole duration and
 * record an undo step for every write; when the transaction fails the undo steps run in reverse,
 * so a failed workflow leaves no state, no audit row and no outbox row. Reads and writes outside a
 * transaction wait for the lock while a transaction holds it, so nobody reads another fiber's
 * uncommitted writes and a rollback never clobbers a concurrent write. While no transaction holds
 * it they run at once, without taking it: every read and write is one synchronous function on a
 * single JS thread, so with no transaction open the maps hold only committed rows and nothing can
 * roll back under them (on every request, a permit would cost more than the read itself).
 */
import type { Id } from "@image-policy/core"
import {
  type ApiKey,
  type Assignment,
  type Audit,
  Cursor,
  type Organization,
  type Outbox,
  PolicyGroup,
  type Remediation,
  Repository,
  Routine,
  Scan,
  type SnoozeRequest,
  Store,
  Team,
  Text,
  VcsConnection,
  type Webhook
} from "@image-policy/core"
import type { ClaimedScan, Page, PageRequest, RoutineTarget, StoreService } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import * as Storable from "../Storable.js"

interface DeliveryRow extends Outbox.Delivery {
  readonly orgId: Id.OrgId
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
}

interface ScanRow extends Scan.BranchScan {
  readonly leaseWorker: string | null
  readonly leaseUntil: number | null
}

interface OrgState {
  readonly org: Organization.Organization
  readonly teams: Map<string, Team.Team>
  readonly routines: Map<string, Routine.Routine>
  readonly connections: Map<string, { readonly connection: VcsConnection.VcsConnection; readonly settings: unknown }>
  readonly repositories: Map<string, Repository.Repository & { readonly vcsConnectionId: Id.VcsConnectionId }>
  readonly groups: Map<string, PolicyGroup.PolicyGroup>
  /** keyed by `phaseId|key` */
  readonly drafts: Map<string, PolicyGroup.DraftMapping & { readonly groupId: Id.PolicyGroupId }>
  readonly published: Map<string, ReadonlyArray<PolicyGroup.PublishedMapping>>
  readonly assignments: Map<string, ReadonlyArray<Assignment.RepositoryAssignment>>
  readonly apiKeys: Map<string, ApiKey.ApiKey>
  readonly webhooks: Map<string, Webhook.WebhookDestination>
  readonly snoozes: Map<string, SnoozeRequest.SnoozeRequest>
  readonly audit: Array<Audit.AuditEvent>
  readonly events: Map<string, Outbox.OutboxEvent>
  readonly attempts: Array<Outbox.DeliveryAttempt>
  readonly scans: Map<string, ScanRow>
  /** The branch's current findings in the findings order, keyed by `repositoryId|branchName`. */
  readonly findings: Map<string, ReadonlyArray<Storable.PositionedFinding>>
  readonly remediations: Map<string, Remediation.RemediationRequest>
}

// sort keys compare by code point, as PostgreSQL's COLLATE "C" compares their UTF-8 bytes, so every
// store lists names and paths in one order
const compareKeys = ([ka, ia]: readonly [string, string], [kb, ib]: readonly [string, string]): number =>
  Text.compareCodePoints(ka, kb) || Text.compareCodePoints(ia, ib)

const sortBy = <A>(rows: Iterable<A>, key: (a: A) => readonly [string, string], desc = false): Array<A> =>
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

const byName = (a: { readonly name: string; readonly id: string }) => [a.name, a.id] as const
const byCreated = (a: { readonly createdAt: string; readonly id: string }) => [a.createdAt, a.id] as const

let instances = 0

export const make: Effect.Effect<StoreService> = Effect.sync(() => {
  const orgs = new Map<string, OrgState>()
  const deliveries = new Map<string, DeliveryRow>()
  /**
   * The undo log of the transaction the fiber runs in (`null`: none). One reference per store
   * instance (its key is the reference's identity), so a transaction on one memory store never
   * makes another store's writes skip that store's lock.
   */
  const UndoLog = Context.Reference<Array<() => void> | null>(
    `@image-policy/adapters/MemoryStore/undoLog/${instances++}`,
    { defaultValue: () => null }
  )
  /** The store's one lock, held by each transaction for its whole body. */
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

  /** Runs a synchronous write inside the caller's transaction, or outside any. */
  const run = <A>(f: (undo: (step: () => void) => void) => A): Effect.Effect<A> =>
    Effect.withFiber((fiber) => {
      const log = fiber.getRef(UndoLog)
      return log !== null ? Effect.sync(() => f((step) => log.push(step))) : outside(() => f(noUndo))
    })

  /**
   * Runs a synchronous read: inside the caller's transaction, or outside any (nothing uncommitted
   * to see), so it waits while another fiber's transaction is open.
   */
  const read = <A>(f: () => A): Effect.Effect<A> =>
    Effect.withFiber((fiber) => fiber.getRef(UndoLog) !== null ? Effect.sync(f) : outside(f))

  const state = (orgId: string): OrgState | undefined => orgs.get(orgId)
  const need = (orgId: string): OrgState => {
    const s = orgs.get(orgId)
    if (s === undefined) throw new Error(`memory store: organization ${orgId} does not exist`)
    return s
  }

  /** Sets `map[key] = value`, recording how to undo it. */
  const put = <K, V>(undo: (step: () => void) => void, map: Map<K, V>, key: K, value: V) => {
    const had = map.has(key)
    const previous = map.get(key)
    map.set(key, value)
    undo(() => (had ? map.set(key, previous as V) : map.delete(key)))
  }
  const remove = <K, V>(undo: (step: () => void) => void, map: Map<K, V>, key: K) => {
    if (!map.has(key)) return
    const previous = map.get(key) as V
    map.delete(key)
    undo(() => map.set(key, previous))
  }
  const push = <A>(undo: (step: () => void) => void, array: Array<A>, value: A) => {
    array.push(value)
    undo(() => {
      const i = array.lastIndexOf(value)
      if (i >= 0) array.splice(i, 1)
    })
  }

  const getIn = <V>(orgId: string, pick: (s: OrgState) => Map<string, V>, id: string) =>
    read(() => Option.fromNullishOr(state(orgId) && pick(state(orgId)!).get(id)))
  const valuesOf = <V>(orgId: string, pick: (s: OrgState) => Map<string, V>): Array<V> => {
    const s = state(orgId)
    return s ? [...pick(s).values()] : []
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

  /** Sets a repository branch's `scan.status`; a missing repository or branch is left alone. */
  const setBranchStatus = (
    undo: (step: () => void) => void,
    s: OrgState,
    repositoryId: string,
    branchName: string,
    status: Scan.ScanStatus
  ) => {
    const repo = s.repositories.get(repositoryId)
    if (!repo || !repo.branches.some((b) => b.branchName === branchName)) return
    put(undo, s.repositories, repositoryId, {
      ...repo,
      branches: repo.branches.map((b) => b.branchName === branchName ? { ...b, scan: { ...b.scan, status } } : b)
    })
  }

  const scansOf = (orgId: string, repositoryId: string, branchName?: string) =>
    valuesOf(orgId, (s) => s.scans).filter((r) =>
      r.repositoryId === repositoryId && (branchName === undefined || r.branchName === branchName)
    )

  const service: StoreService = {
    transaction,
    organizations: {
      get: (orgId) => read(() => Option.fromNullishOr(state(orgId)?.org)),
      insert: (org) =>
        run((undo) => {
          const existing = orgs.get(org.id)
          if (existing) {
            put(undo, orgs, org.id, { ...existing, org })
            return
          }
          put(undo, orgs, org.id, {
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
            remediations: new Map()
          })
        })
    },
    teams: {
      list: (orgId, page) => read(() => paginate(sortBy(valuesOf(orgId, (s) => s.teams), byName), byName, page)),
      get: (orgId, id) => getIn(orgId, (s) => s.teams, id),
      insert: (orgId, team) => run((undo) => put(undo, need(orgId).teams, team.id, team))
    },
    routines: {
      list: (orgId, page, filter) =>
        read(() => {
          const rows = valuesOf(orgId, (s) => s.routines).filter((r) =>
            filter?.teamId === undefined || r.teamId === filter.teamId
          )
          return paginate(sortBy(rows, byName), byName, page)
        }),
      get: (orgId, id) => getIn(orgId, (s) => s.routines, id),
      insert: (orgId, routine) => run((undo) => put(undo, need(orgId).routines, routine.id, routine))
    },
    vcsConnections: {
      list: (orgId, page) =>
        read(() => {
          const key = (c: VcsConnection.VcsConnection) => [c.externalAccountName, c.id] as const
          const rows = valuesOf(orgId, (s) => s.connections).map((c) => c.connection)
          return paginate(sortBy(rows, key), key, page)
        }),
      get: (orgId, id) => read(() => Option.fromNullishOr(state(orgId)?.connections.get(id)?.connection)),
      insert: (orgId, connection, settings) =>
        run((undo) => put(undo, need(orgId).connections, connection.id, { connection, settings })),
      settings: (orgId, id) => read(() => Option.fromNullishOr(state(orgId)?.connections.get(id)?.settings)),
      setStatus: (orgId, id, status) =>
        run((undo) => {
          const s = state(orgId)
          const row = s?.connections.get(id)
          if (s && row) put(undo, s.connections, id, { ...row, connection: { ...row.connection, status } })
        }),
      setHealth: (orgId, id, status) =>
        run((undo) => {
          const s = state(orgId)
          const row = s?.connections.get(id)
          if (s && row && row.connection.status !== "inactive" && row.connection.status !== status) {
            put(undo, s.connections, id, { ...row, connection: { ...row.connection, status } })
          }
        }),
      locate: (id) =>
        read(() => {
          for (const s of orgs.values()) {
            const row = s.connections.get(id)
            if (row) return Option.some({ orgId: s.org.id, connection: row.connection, settings: row.settings })
          }
          return Option.none()
        })
    },
    repositories: {
      list: (orgId, page, filter) =>
        read(() => {
          const rows = valuesOf(orgId, (s) => s.repositories).filter((r) =>
            filter?.repositoryId === undefined || r.id === filter.repositoryId
          )
          return paginate(sortBy(rows, byCreated), byCreated, page)
        }),
      get: (orgId, id) => getIn(orgId, (s) => s.repositories, id),
      findByExternalId: (orgId, connectionId, externalRepoId) =>
        read(() =>
          Option.fromNullishOr(
            valuesOf(orgId, (s) => s.repositories).find((r) =>
              r.vcsConnectionId === connectionId && r.externalRepoId === externalRepoId
            )
          )
        ),
      trackedExternalIds: (orgId, connectionId) =>
        read(() =>
          new Set(
            valuesOf(orgId, (s) => s.repositories).filter((r) => r.vcsConnectionId === connectionId).map((r) =>
              r.externalRepoId
            )
          )
        ),
      insert: (orgId, repository) =>
        Effect.flatten(run((undo) => {
          const s = need(orgId)
          const existing = [...s.repositories.values()].find((r) =>
            r.vcsConnectionId === repository.vcsConnectionId && r.externalRepoId === repository.externalRepoId
          )
          if (existing) {
            return Effect.fail(
              new Repository.RepositoryAlreadyTracked({
                externalRepoId: repository.externalRepoId,
                repositoryId: existing.id
              })
            )
          }
          put(undo, s.repositories, repository.id, repository)
          return Effect.void
        })),
      lock: () => Effect.void // the memory store serializes every transaction already
    },
    policyGroups: {
      list: (orgId, page) => read(() => paginate(sortBy(valuesOf(orgId, (s) => s.groups), byName), byName, page)),
      all: (orgId) => read(() => sortBy(valuesOf(orgId, (s) => s.groups), byName)),
      get: (orgId, id) => getIn(orgId, (s) => s.groups, id),
      insert: (orgId, group) => run((undo) => put(undo, need(orgId).groups, group.id, group)),
      lock: () => Effect.void,
      setExternalState: (orgId, groupId, phaseId, patch) =>
        run((undo) => {
          const s = state(orgId)
          const group = s?.groups.get(groupId)
          if (!s || !group) return
          put(undo, s.groups, groupId, {
            ...group,
            phases: group.phases.map((p) =>
              p.id === phaseId && p.external ? { ...p, external: { ...p.external, ...patch } } : p
            )
          })
        }),
      externalPhases: () =>
        read(() =>
          [...orgs.values()].flatMap((s) =>
            sortBy(s.groups.values(), byName).flatMap((g) =>
              PolicyGroup.externalPhases(g).map((p) => ({ orgId: s.org.id, policyGroupId: g.id, phaseId: p.id, external: p.external }))
            )
          )
        )
    },
    drafts: {
      listByPhase: (orgId, groupId, phaseId, page) =>
        read(() => {
          const rows = valuesOf(orgId, (s) => s.drafts).filter((d) => d.groupId === groupId && d.phaseId === phaseId)
          return paginate(sortBy(rows, byCreated).map(stripGroup), byCreated, page)
        }),
      listByGroup: (orgId, groupId) =>
        read(() => sortBy(valuesOf(orgId, (s) => s.drafts).filter((d) => d.groupId === groupId), byCreated).map(stripGroup)),
      findByKey: (orgId, groupId, phaseId, key) =>
        read(() => {
          const d = state(orgId)?.drafts.get(`${phaseId}|${key}`)
          return d && d.groupId === groupId ? Option.some(stripGroup(d)) : Option.none()
        }),
      put: (orgId, groupId, mapping) =>
        run((undo) => put(undo, need(orgId).drafts, `${mapping.phaseId}|${mapping.key}`, { ...mapping, groupId }))
    },
    published: {
      listByGroup: (orgId, groupId) => read(() => state(orgId)?.published.get(groupId) ?? []),
      listByGroups: (orgId, groupIds) =>
        read(() => new Map(groupIds.map((id) => [id, state(orgId)?.published.get(id) ?? []] as const))),
      replace: (orgId, groupId, phaseIds, mappings) =>
        run((undo) => {
          const s = need(orgId)
          const kept = (s.published.get(groupId) ?? []).filter((m) => !phaseIds.includes(m.phaseId))
          put(undo, s.published, groupId, [...kept, ...mappings.filter((m) => phaseIds.includes(m.phaseId))])
        })
    },
    assignments: {
      get: (orgId, repositoryId) => read(() => state(orgId)?.assignments.get(repositoryId) ?? []),
      replace: (orgId, repositoryId, assignments) =>
        run((undo) => put(undo, need(orgId).assignments, repositoryId, assignments))
    },
    apiKeys: {
      insert: (orgId, key) => run((undo) => put(undo, need(orgId).apiKeys, key.id, key)),
      list: (orgId, page) => read(() => paginate(sortBy(valuesOf(orgId, (s) => s.apiKeys), byCreated), byCreated, page)),
      get: (orgId, id) => getIn(orgId, (s) => s.apiKeys, id),
      findBySecretHash: (secretHash) =>
        read(() => {
          for (const s of orgs.values()) {
            for (const key of s.apiKeys.values()) {
              if (key.secretHash === secretHash) return Option.some({ orgId: s.org.id, key, organization: s.org })
            }
          }
          return Option.none()
        }),
      update: (orgId, key) =>
        run((undo) => {
          const s = state(orgId)
          if (s?.apiKeys.has(key.id)) put(undo, s.apiKeys, key.id, key)
        }),
      touch: (orgId, id, at) =>
        run((undo) => {
          const s = state(orgId)
          const key = s?.apiKeys.get(id)
          if (s && key && (key.lastUsedAt === null || key.lastUsedAt < at)) put(undo, s.apiKeys, id, { ...key, lastUsedAt: at })
        })
    },
    webhooks: {
      insert: (orgId, d) => run((undo) => put(undo, need(orgId).webhooks, d.id, d)),
      list: (orgId, page) => read(() => paginate(sortBy(valuesOf(orgId, (s) => s.webhooks), byCreated), byCreated, page)),
      all: (orgId) => read(() => sortBy(valuesOf(orgId, (s) => s.webhooks), byCreated)),
      get: (orgId, id) => getIn(orgId, (s) => s.webhooks, id),
      update: (orgId, d) =>
        run((undo) => {
          const s = state(orgId)
          if (s?.webhooks.has(d.id)) put(undo, s.webhooks, d.id, d)
        }),
      delete: (orgId, id) =>
        run((undo) => {
          const s = state(orgId)
          if (!s) return
          remove(undo, s.webhooks, id)
          for (const [k, row] of deliveries) {
            if (row.orgId === orgId && row.webhookId === id) remove(undo, deliveries, k)
          }
        })
    },
    snoozeRequests: {
      insert: (orgId, r) => run((undo) => put(undo, need(orgId).snoozes, r.id, r)),
      list: (orgId, page) => read(() => paginate(sortBy(valuesOf(orgId, (s) => s.snoozes), byCreated), byCreated, page)),
      listByRepository: (orgId, repositoryId) =>
        read(() => sortBy(valuesOf(orgId, (s) => s.snoozes).filter((r) => r.repositoryId === repositoryId), byCreated)),
      get: (orgId, id) => getIn(orgId, (s) => s.snoozes, id),
      update: (orgId, r) =>
        run((undo) => {
          const s = state(orgId)
          if (s?.snoozes.has(r.id)) put(undo, s.snoozes, r.id, r)
        })
    },
    scans: {
      enqueue: (orgId, scan) =>
        run((undo) => {
          const s = need(orgId)
          for (const row of s.scans.values()) {
            if (row.repositoryId === scan.repositoryId && row.branchName === scan.branchName && isPending(row)) {
              return publicScan(row)
            }
          }
          const row: ScanRow = { ...scan, status: "queued", attempts: 0, leaseWorker: null, leaseUntil: null }
          put(undo, s.scans, scan.id, row)
          setBranchStatus(undo, s, scan.repositoryId, scan.branchName, "queued")
          return publicScan(row)
        }),
      get: (orgId, id) => read(() => Option.map(Option.fromNullishOr(state(orgId)?.scans.get(id)), publicScan)),
      latest: (orgId, repositoryId, branchName) =>
        read(() => Option.fromNullishOr(sortBy(scansOf(orgId, repositoryId, branchName), byQueued, true)[0]).pipe(Option.map(publicScan))),
      latestSucceeded: (orgId, repositoryId, branchName) =>
        read(() =>
          Option.fromNullishOr(
            sortBy(scansOf(orgId, repositoryId, branchName).filter((r) => r.status === "succeeded"), byQueued, true)[0]
          ).pipe(Option.map(publicScan))
        ),
      list: (orgId, repositoryId, page, filter) =>
        read(() => paginate(sortBy(scansOf(orgId, repositoryId, filter?.branchName), byQueued, true).map(publicScan), byQueued, page, true)),
      claim: ({ leaseMs, limit, now, worker }) =>
        run((undo) => {
          const t = now.getTime()
          const due: Array<readonly [OrgState, ScanRow]> = []
          for (const s of orgs.values()) {
            for (const row of s.scans.values()) {
              const expired = row.status === "running" && (row.leaseUntil === null || row.leaseUntil < t)
              if (expired && row.attempts >= Scan.maxScanAttempts) {
                // every attempt hung past its lease or crashed its worker: give up instead of
                // handing it out again (a failed scan keeps the branch's previous findings)
                put(undo, s.scans, row.id, {
                  ...row,
                  ...Scan.endedFields({ status: "failed", failure: "abandoned", at: now.toISOString() }),
                  leaseWorker: null,
                  leaseUntil: null
                })
                setBranchStatus(undo, s, row.repositoryId, row.branchName, "failed")
              } else if (row.status === "queued" || expired) {
                due.push([s, row])
              }
            }
          }
          const oldest = sortBy(due, ([, row]) => byQueued(row)).slice(0, limit)
          return oldest.map(([s, row]): ClaimedScan => {
            const claimed: ScanRow = {
              ...row,
              status: "running",
              startedAt: row.startedAt ?? Scan.startedAt(row.queuedAt, now.toISOString()),
              attempts: row.attempts + 1,
              leaseWorker: worker,
              leaseUntil: t + leaseMs
            }
            put(undo, s.scans, row.id, claimed)
            setBranchStatus(undo, s, row.repositoryId, row.branchName, "running")
            return { orgId: s.org.id, scan: publicScan(claimed) }
          })
        }),
      finish: (orgId, id, worker, outcome) =>
        run((undo) => {
          const s = state(orgId)
          const row = s?.scans.get(id)
          if (!s || !row || row.status !== "running" || row.leaseWorker !== worker) return false
          const findings = outcome.status === "succeeded" ? Storable.positioned(outcome.findings) : []
          put(undo, s.scans, id, { ...row, ...Scan.endedFields(outcome), leaseWorker: null, leaseUntil: null })
          // a failed scan keeps the branch's previous findings
          if (outcome.status === "succeeded") put(undo, s.findings, branchKey(row.repositoryId, row.branchName), findings)
          setBranchStatus(undo, s, row.repositoryId, row.branchName, outcome.status)
          return true
        }),
      findings: (orgId, repositoryId, branchName, page) =>
        read(() => {
          let rows = state(orgId)?.findings.get(branchKey(repositoryId, branchName)) ?? []
          if (page.cursor !== undefined) {
            const position = Result.getOrThrowWith(Cursor.decodeCursor(page.cursor), (e) => e)
            const file = String(position.sortKey)
            const [line, column, seq] = Storable.parseCursorId(position.id)
            rows = rows.filter(({ finding: f, seq: q }) =>
              (Text.compareCodePoints(f.file, file) || f.line - line || f.column - column || q - seq) > 0
            )
          }
          const items = rows.slice(0, page.limit)
          const last = items[items.length - 1]
          const nextCursor = rows.length > page.limit && last !== undefined
            ? Cursor.encodeCursor({ sortKey: Storable.cursorKey(last)[0], id: Storable.cursorKey(last)[1] })
            : null
          return { items: items.map((p) => p.finding), nextCursor }
        }),
      allFindings: (orgId, repositoryId, branchName) =>
        read(() => (state(orgId)?.findings.get(branchKey(repositoryId, branchName)) ?? []).map((p) => p.finding)),
      routineTargets: () =>
        read(() => {
          const targets: Array<RoutineTarget> = []
          for (const s of sortBy(orgs.values(), (o) => [o.org.id, o.org.id] as const)) {
            const lastRoutine = new Map<string, string>()
            for (const scan of s.scans.values()) {
              const k = branchKey(scan.repositoryId, scan.branchName)
              const seen = lastRoutine.get(k)
              if (scan.trigger === "routine" && (seen === undefined || scan.queuedAt > seen)) lastRoutine.set(k, scan.queuedAt)
            }
            for (const repo of sortBy(s.repositories.values(), byCreated)) {
              const routine = s.routines.get(repo.assignedRoutineId)
              if (routine === undefined || !routine.active) continue
              for (const b of repo.branches) {
                targets.push({
                  orgId: s.org.id,
                  repositoryId: repo.id,
                  branchName: b.branchName,
                  intervalDays: routine.intervalDays,
                  trackedAt: repo.createdAt,
                  lastRoutineScanAt: lastRoutine.get(branchKey(repo.id, b.branchName)) ?? null
                })
              }
            }
          }
          return targets
        })
    },
    remediations: {
      put: (orgId, request) => run((undo) => put(undo, need(orgId).remediations, request.id, Storable.remediation(request))),
      get: (orgId, id) => getIn(orgId, (s) => s.remediations, id),
      latest: (orgId, repositoryId, branchName, options) =>
        read(() =>
          Option.fromNullishOr(
            sortBy(
              valuesOf(orgId, (s) => s.remediations).filter((r) =>
                r.repositoryId === repositoryId && r.branchName === branchName && !(options?.excludeFailed && r.status === "failed")
              ),
              byCreated,
              true
            )[0]
          )
        ),
      list: (orgId, repositoryId, page) =>
        read(() => {
          const rows = valuesOf(orgId, (s) => s.remediations).filter((r) => r.repositoryId === repositoryId)
          return paginate(sortBy(rows, byCreated, true), byCreated, page, true)
        })
    },
    audit: {
      append: (orgId, event) => run((undo) => push(undo, need(orgId).audit, event)),
      list: (orgId, page) =>
        read(() => {
          const key = (a: Audit.AuditEvent) => [a.at, a.id] as const
          return paginate(sortBy(state(orgId)?.audit ?? [], key, true), key, page, true)
        })
    },
    outbox: {
      append: (orgId, events) =>
        run((undo) => {
          const s = need(orgId)
          for (const { destinations, event } of events) {
            put(undo, s.events, event.id, event)
            for (const webhookId of destinations) {
              put(undo, deliveries, `${event.id}|${webhookId}`, {
                orgId: s.org.id,
                eventId: event.id,
                webhookId,
                status: "pending",
                attempts: 0,
                nextAttemptAt: event.time,
                lastStatusCode: null,
                updatedAt: event.time,
                leaseOwner: null,
                leaseUntil: null
              })
            }
          }
        }),
      getEvent: (orgId, id) => getIn(orgId, (s) => s.events, id),
      claim: ({ leaseMs, limit, now, worker }) =>
        run((undo) => {
          const t = now.getTime()
          const due = [...deliveries.entries()]
            .filter(([, d]) =>
              d.status === "pending" && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) <= t &&
              (d.leaseUntil === null || d.leaseUntil < t)
            )
            .sort(([, a], [, b]) => Date.parse(a.nextAttemptAt!) - Date.parse(b.nextAttemptAt!))
            .slice(0, limit)
          return due.map(([k, d]) => {
            put(undo, deliveries, k, { ...d, leaseOwner: worker, leaseUntil: t + leaseMs })
            return { orgId: d.orgId, delivery: publicDelivery(d), event: orgs.get(d.orgId)!.events.get(d.eventId)! }
          })
        }),
      recordAttempt: (orgId, attempt, next) =>
        run((undo) => {
          const k = `${attempt.eventId}|${attempt.webhookId}`
          const d = deliveries.get(k)
          if (!d || d.orgId !== orgId) return
          push(undo, need(orgId).attempts, attempt)
          put(undo, deliveries, k, {
            ...d,
            status: next.status,
            nextAttemptAt: next.nextAttemptAt,
            attempts: d.attempts + 1,
            lastStatusCode: attempt.statusCode,
            updatedAt: attempt.at,
            leaseOwner: null,
            leaseUntil: null
          })
        }),
      deliveries: (orgId, webhookId, page) =>
        read(() => {
          const key = (d: Outbox.Delivery) => [d.updatedAt, d.eventId] as const
          const rows = [...deliveries.values()].filter((d) => d.orgId === orgId && d.webhookId === webhookId)
          return paginate(sortBy(rows, key).map(publicDelivery), key, page)
        }),
      attempts: (orgId, eventId, webhookId) =>
        read(() => (state(orgId)?.attempts ?? []).filter((a) => a.eventId === eventId && a.webhookId === webhookId)),
      requeue: (orgId, eventId, webhookId, now) =>
        run((undo) => {
          const k = `${eventId}|${webhookId}`
          const d = deliveries.get(k)
          if (!d || d.orgId !== orgId || d.status !== "dead") return false
          put(undo, deliveries, k, {
            ...d,
            status: "pending",
            nextAttemptAt: now.toISOString(),
            updatedAt: now.toISOString(),
            leaseOwner: null,
            leaseUntil: null
          })
          return true
        })
    }
  }
  return service
})

const stripGroup = ({ groupId: _g, ...draft }: PolicyGroup.DraftMapping & { readonly groupId: Id.PolicyGroupId }) =>
  draft as PolicyGroup.DraftMapping

const publicScan = ({ leaseUntil: _u, leaseWorker: _w, ...scan }: ScanRow): Scan.BranchScan => scan

const isPending = (scan: Scan.BranchScan) => scan.status === "queued" || scan.status === "running"

const byQueued = (a: { readonly queuedAt: string; readonly id: string }) => [a.queuedAt, a.id] as const

/** Repository ids hold no `|`, so the key is unambiguous whatever the branch name holds. */
const branchKey = (repositoryId: string, branchName: string) => `${repositoryId}|${branchName}`

const publicDelivery = ({ leaseOwner: _o, leaseUntil: _u, orgId: _org, ...d }: DeliveryRow): Outbox.Delivery => d

export const layer: Layer.Layer<Store> = Layer.effect(Store, make)
