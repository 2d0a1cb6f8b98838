/**
 * A repository's policy group assignments. Groups that apply to all repositories are listed and
 * cannot be assigned or removed here. The editor holds the complete list of repository-specific
 * assignments: saving REPLACES every assignment with what is listed (a group left out is
 * unassigned), so the confirmation shows exactly what is sent and what it removes.
 */
import type { Assignment } from "@image-policy/core"
import { useEffect, useId, useMemo, useState } from "react"
import { useMutation, useQuery } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Loading } from "../../components/Loading.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { asId, type PolicyGroupId, type RepositoryId, usePolicyGroups } from "./shared.js"

interface Draft {
  readonly policyGroupId: string
  readonly branchNames: ReadonlyArray<string>
}

const describe = (d: Draft, name: (id: string) => string) => `${name(d.policyGroupId)} on ${d.branchNames.join(", ") || "no branch"}`

export function Assignments({ repositoryId, onChanged }: { readonly repositoryId: string; readonly onChanged?: () => void }) {
  const { can } = useSession()
  const toast = useToast()
  const editable = can("assignments:manage") && can("policy:read")
  const groups = usePolicyGroups(can("policy:read"))
  const view = useQuery(
    (api, orgId) => api.repositories.getAssignments({ params: { orgId, repositoryId: asId<RepositoryId>(repositoryId) } }),
    [repositoryId]
  )
  const saved = useMemo<ReadonlyArray<Draft>>(
    () =>
      (view.data?.items ?? [])
        .filter((i) => i.source === "repository_assignment")
        .map((i) => ({ policyGroupId: i.id, branchNames: i.branchNames })),
    [view.data]
  )
  const allRepos = (view.data?.items ?? []).filter((i) => i.source === "all_repositories")
  const tracked = view.data?.trackedBranchNames ?? []
  const [draft, setDraft] = useState<ReadonlyArray<Draft>>([])
  const [adding, setAdding] = useState("")
  const [confirming, setConfirming] = useState(false)
  const addId = useId()
  useEffect(() => setDraft(saved), [saved])

  const replace = useMutation((api, orgId, assignments: ReadonlyArray<Draft>) =>
    api.repositories.replaceAssignments({
      params: { orgId, repositoryId: asId<RepositoryId>(repositoryId) },
      payload: {
        assignments: assignments.map((a) => ({ policyGroupId: asId<PolicyGroupId>(a.policyGroupId), branchNames: [...a.branchNames] }))
      }
    })
  )

  const nameOf = (id: string) => groups.byId.get(id)?.name ?? (view.data?.items ?? []).find((i) => i.id === id)?.name ?? id
  const removed = saved.filter((s) => !draft.some((d) => d.policyGroupId === s.policyGroupId))
  const changed = JSON.stringify(saved) !== JSON.stringify(draft)
  const fieldErrors = replace.error?.fieldErrors ?? {}
  const errorAt = (i: number) =>
    Object.entries(fieldErrors)
      .filter(([k]) => k.startsWith(`assignments[${i}]`))
      .map(([, m]) => m)
      .join(" ") || undefined

  const update = (i: number, next: Draft) => setDraft((all) => all.map((d, j) => (j === i ? next : d)))

  const readOnlyList = (items: ReadonlyArray<Assignment.AssignmentViewItem>) => (
    <ul className="assign-list">
      {items.map((i) => (
        <li key={i.id} className="assign-item">
          <div className="assign-item__head">
            <span className="assign-item__name">{i.name}</span>
            {i.source === "all_repositories"
              ? <span className="badge">All repositories</span>
              : i.assignmentState === "stale"
              ? <span className="badge badge--warning">Names an untracked branch</span>
              : <span className="badge badge--success">Assigned</span>}
          </div>
          <p className="muted repo-note" style={{ margin: 0 }}>Branches: {i.branchNames.join(", ") || "none"}</p>
        </li>
      ))}
    </ul>
  )

  if (view.loading && view.data === undefined) return <Loading label="Loading assignments" />
  if (view.error !== undefined && view.data === undefined) return <ErrorMessage error={view.error} onRetry={view.reload} />

  const assignable = groups.items.filter((g) => !draft.some((d) => d.policyGroupId === g.id))

  return (
    <>
      <h3>Groups that apply to all repositories</h3>
      {allRepos.length === 0
        ? <p className="muted">No policy group applies to all repositories.</p>
        : (
          <>
            <p className="muted repo-note">These apply to every tracked branch. They cannot be assigned or removed here.</p>
            {readOnlyList(allRepos)}
          </>
        )}
      <h3 style={{ marginTop: "1.25rem" }}>Assigned to this repository</h3>
      {!editable
        ? (saved.length === 0
          ? <p className="muted">No policy group is assigned to this repository.</p>
          : readOnlyList((view.data?.items ?? []).filter((i) => i.source === "repository_assignment")))
        : (
          <div>
            <div className="alert alert--info">
              <p>
                <strong>Saving replaces all assignments.</strong>{" "}
                The list below is sent as this repository's complete set: a group you remove from it is unassigned. Groups that apply to all
                repositories are not affected.
              </p>
            </div>
            {draft.length === 0 ? <p className="muted">No policy group is assigned. Add one below.</p> : null}
            <ul className="assign-list">
              {draft.map((d, i) => {
                const error = errorAt(i)
                return (
                  <li key={d.policyGroupId} className="assign-item">
                    <div className="assign-item__head">
                      <span className="assign-item__name">{nameOf(d.policyGroupId)}</span>
                      <button
                        type="button"
                        className="button button--small"
                        aria-label={`Remove ${nameOf(d.policyGroupId)}`}
                        onClick={() => setDraft((all) => all.filter((_, j) => j !== i))}
                      >
                        Remove
                      </button>
                    </div>
                    <fieldset className="assign-branches" aria-invalid={error !== undefined ? true : undefined}>
                      <legend>Branches {nameOf(d.policyGroupId)} applies to</legend>
                      {[...new Set([...tracked, ...d.branchNames])].map((b) => (
                        <label key={b}>
                          <input
                            type="checkbox"
                            checked={d.branchNames.includes(b)}
                            onChange={(e) =>
                              update(i, {
                                ...d,
                                branchNames: e.currentTarget.checked ? [...d.branchNames, b] : d.branchNames.filter((x) => x !== b)
                              })}
                          />
                          {b}
                          {tracked.includes(b) ? null : <span className="muted">(not tracked)</span>}
                        </label>
                      ))}
                    </fieldset>
                    {error !== undefined ? <p className="field__error" role="alert">{error}</p> : null}
                  </li>
                )
              })}
            </ul>
            <div className="repo-inline" style={{ marginTop: "0.75rem" }}>
              <div className="field">
                <label className="field__label" htmlFor={addId}>Add a policy group</label>
                <select id={addId} className="input" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
                  <option value="">Choose a group…</option>
                  {assignable.map((g) => (
                    <option key={g.id} value={g.id} disabled={g.applyToAllRepos}>
                      {g.applyToAllRepos ? `${g.name} (applies to all repositories: cannot be assigned)` : g.name}
                    </option>
                  ))}
                </select>
              </div>
              <button
                type="button"
                className="button"
                disabled={adding === ""}
                onClick={() => {
                  // a new assignment starts on every tracked branch; untick the ones it should not cover
                  setDraft((all) => [...all, { policyGroupId: adding, branchNames: [...tracked] }])
                  setAdding("")
                }}
              >
                Add group
              </button>
            </div>
            {replace.error !== undefined
              ? (
                <div style={{ marginTop: "0.75rem" }}>
                  <ErrorMessage error={replace.error} />
                </div>
              )
              : null}
            <div className="form__actions" style={{ marginTop: "1rem" }}>
              <button
                type="button"
                className="button button--primary"
                disabled={!changed || replace.pending}
                onClick={() => setConfirming(true)}
              >
                Save assignments…
              </button>
              <button
                type="button"
                className="button"
                disabled={!changed}
                onClick={() => {
                  setDraft(saved)
                  replace.reset()
                }}
              >
                Undo changes
              </button>
            </div>
            <ConfirmDialog
              open={confirming}
              title="Replace all assignments?"
              confirmLabel="Replace assignments"
              pending={replace.pending}
              onClose={() => setConfirming(false)}
              onConfirm={async () => {
                const outcome = await replace.run(draft)
                if (outcome.ok) {
                  toast.show("Assignments replaced")
                  view.reload()
                  onChanged?.()
                }
                // field errors show at the assignment they name, after the dialog closes
                return { ok: true }
              }}
            >
              <p>This repository's assignments become exactly:</p>
              {draft.length === 0
                ? (
                  <p>
                    <strong>None</strong>: every repository-specific assignment is removed.
                  </p>
                )
                : (
                  <ul>
                    {draft.map((d) => <li key={d.policyGroupId}>{describe(d, nameOf)}</li>)}
                  </ul>
                )}
              {removed.length > 0
                ? (
                  <p>
                    Unassigned by this change: <strong>{removed.map((r) => nameOf(r.policyGroupId)).join(", ")}</strong>.
                  </p>
                )
                : null}
              <p className="muted">Groups that apply to all repositories stay as they are.</p>
            </ConfirmDialog>
          </div>
        )}
    </>
  )
}
