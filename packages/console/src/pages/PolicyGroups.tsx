/**
 * Policy groups (issue 17, page 3): every group of the organization with what it applies to, its
 * phases (each a link to the phase), how many mappings are published and when the last one was;
 * a user with `policy:publish` creates a group here (name, scope, notification team, cooldown).
 */
import type { PolicyAdministration, PolicyGroup as Core } from "@image-policy/core"
import { useEffect, useRef, useState } from "react"
import { Link, useLocation } from "wouter"
import { run, useMutation, usePaged } from "../api.js"
import { DataTable } from "../components/DataTable.js"
import { EmptyState } from "../components/EmptyState.js"
import { Page } from "../components/Page.js"
import { useToast } from "../components/Toast.js"
import { useSession } from "../session.js"
import { groupIdOf } from "./policy/data.js"
import { count, formatDateTime } from "./policy/format.js"
import { emptyGroup, GroupForm } from "./policy/GroupForm.js"
import "./policy/policy.css"

interface Summary {
  readonly phases: ReadonlyArray<PolicyAdministration.PhaseSettings>
  readonly published: number
  /** The latest `activeFrom` of the mappings published from internal phases. */
  readonly lastPublished: string | null
}

const summarize = (settings: PolicyAdministration.PolicyGroupSettings, details: Core.PolicyGroupDetails): Summary => {
  const internal = new Set(settings.phases.filter((p) => p.sourceType === "internal").map((p) => p.id))
  let last: string | null = null
  for (const m of details.publishedMappings) {
    if (internal.has(m.phaseId) && (last === null || m.activeFrom > last)) last = m.activeFrom
  }
  return { phases: settings.phases, published: details.publishedMappings.length, lastPublished: last }
}

/** Each listed group's phases and published mappings (one read per group, as the rows arrive). */
function useSummaries(ids: ReadonlyArray<string>) {
  const { session } = useSession()
  const orgId = session.organization.id
  const [summaries, setSummaries] = useState<ReadonlyMap<string, Summary | "error">>(new Map())
  const asked = useRef(new Set<string>())
  useEffect(() => {
    for (const id of ids) {
      if (asked.current.has(id)) continue
      asked.current.add(id)
      const params = { orgId, groupId: groupIdOf(id) }
      void Promise.all([
        run((api, org) => api.policy.getPolicyGroup({ params: { ...params, orgId: org } }), orgId),
        run((api, org) => api.policy.getPolicyGroupDetails({ params: { ...params, orgId: org } }), orgId)
      ]).then(([settings, details]) => {
        const value: Summary | "error" = settings.ok && details.ok ? summarize(settings.value, details.value) : "error"
        setSummaries((m) => new Map(m).set(id, value))
      })
    }
  }, [ids, orgId])
  return summaries
}

export default function PolicyGroups() {
  const { can } = useSession()
  const toast = useToast()
  const [, navigate] = useLocation()
  const groups = usePaged(
    (api, orgId, cursor) => api.policy.listPolicyGroups({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const ids = groups.items.map((g) => g.id as string)
  const idsKey = ids.join(",")
  const stableIds = useStable(ids, idsKey)
  const summaries = useSummaries(stableIds)
  const [creating, setCreating] = useState(false)
  const canPublish = can("policy:publish")

  return (
    <Page
      title="Policy groups"
      description="Each group maps base images to their replacements, phase by phase; repositories follow the groups they are assigned."
      actions={canPublish && !creating
        ? <button type="button" className="button button--primary" onClick={() => setCreating(true)}>Create policy group</button>
        : null}
    >
      {creating
        ? (
          <CreateGroup
            onCancel={() => setCreating(false)}
            onCreated={(g) => {
              toast.show(`Policy group “${g.name}” created`)
              navigate(`/policy-groups/${g.id}`)
            }}
          />
        )
        : null}
      <DataTable
        caption="Policy groups"
        paged={groups}
        rowKey={(g) => g.id}
        empty={
          <EmptyState
            title="No policy groups yet"
            action={canPublish && !creating
              ? <button type="button" className="button button--primary" onClick={() => setCreating(true)}>Create policy group</button>
              : null}
          >
            A policy group holds the mappings from old base images to new ones.
          </EmptyState>
        }
        columns={[
          { header: "Name", cell: (g) => <Link href={`/policy-groups/${g.id}`} className="pg-name">{g.name}</Link> },
          {
            header: "Applies to",
            cell: (g) => g.applyToAllRepos ? <span className="badge badge--success">All repositories</span> : "Assigned repositories"
          },
          { header: "Phases", cell: (g) => <PhasesCell groupId={g.id} summary={summaries.get(g.id)} /> },
          {
            header: "Published",
            cell: (g) => {
              const s = summaries.get(g.id)
              return s === undefined ? <span className="muted">…</span> : s === "error" ? "—" : count(s.published, "mapping")
            }
          },
          {
            header: "Last published",
            cell: (g) => {
              const s = summaries.get(g.id)
              return s === undefined ? <span className="muted">…</span> : s === "error" ? "—" : formatDateTime(s.lastPublished)
            }
          },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (g) => (
              <Link href={`/policy-groups/${g.id}`} className="button button--small">
                Open<span className="visually-hidden">{g.name}</span>
              </Link>
            )
          }
        ]}
      />
    </Page>
  )
}

/** The same array while its key is the same (so effects keyed on it run once per change). */
function useStable<A>(value: A, key: string): A {
  const ref = useRef<{ key: string; value: A }>({ key, value })
  if (ref.current.key !== key) ref.current = { key, value }
  return ref.current.value
}

function PhasesCell({ groupId, summary }: { readonly groupId: string; readonly summary: Summary | "error" | undefined }) {
  if (summary === undefined) return <span className="muted">…</span>
  if (summary === "error") return <span className="muted">Could not be read</span>
  if (summary.phases.length === 0) return <span className="muted">No phases</span>
  return (
    <ul className="pg-phase-links">
      {summary.phases.map((p) => (
        <li key={p.id}>
          <Link href={`/policy-groups/${groupId}/phases/${p.id}`}>{p.name}</Link> <span className="muted">({p.sourceType})</span>
        </li>
      ))}
    </ul>
  )
}

function CreateGroup({ onCancel, onCreated }: {
  readonly onCancel: () => void
  readonly onCreated: (g: PolicyAdministration.PolicyGroupSettings) => void
}) {
  const create = useMutation((api, orgId, body: PolicyAdministration.CreatePolicyGroupRequest) =>
    api.policy.createPolicyGroup({ params: { orgId }, payload: body })
  )
  const ref = useRef<HTMLElement>(null)
  useEffect(() => {
    ref.current?.querySelector<HTMLInputElement>("input")?.focus()
  }, [])
  return (
    <section ref={ref} className="card pg-create" aria-labelledby="pg-create-title">
      <h2 id="pg-create-title">Create a policy group</h2>
      <GroupForm
        initial={emptyGroup}
        submitLabel="Create group"
        mutation={create}
        onSaved={onCreated}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      />
    </section>
  )
}
