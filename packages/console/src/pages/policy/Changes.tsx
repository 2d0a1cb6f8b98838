/**
 * The draft against the published state (what the next publish does: mappings added, changed,
 * removed) and Publish, confirmed in a dialog that lists those changes.
 */
import type { PolicyAdministration } from "@image-policy/core"
import { useState } from "react"
import { useMutation } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Loading } from "../../components/Loading.js"
import { useToast } from "../../components/Toast.js"
import type { ApiError } from "../../problem.js"
import { useSession } from "../../session.js"
import { groupIdOf } from "./data.js"
import { count, mappingLabel, mappingText } from "./format.js"
import { VirtualList } from "./VirtualList.js"

type Draft = PolicyAdministration.DraftView

export interface Change {
  readonly kind: "added" | "changed" | "removed"
  readonly key: string
  readonly fromImage: string
  readonly toImage: string
  readonly platformScope?: string | undefined
  readonly reason?: string | undefined
  /** The published target a change replaces. */
  readonly before?: string | undefined
  readonly phaseId: string
}

export const changesOf = (draft: Draft): ReadonlyArray<Change> => [
  ...draft.added.map((m): Change => ({ kind: "added", key: `a:${m.id}`, ...pick(m), phaseId: m.phaseId })),
  ...draft.changed.map((c): Change => ({
    kind: "changed",
    key: `c:${c.after.id}`,
    ...pick(c.after),
    before: mappingLabel(c.before),
    phaseId: c.after.phaseId
  })),
  ...draft.removed.map((m): Change => ({ kind: "removed", key: `r:${m.id}`, ...pick(m), phaseId: m.phaseId }))
]

const pick = (m: { fromImage: string; toImage: string; platformScope?: string; reason?: string }) => ({
  fromImage: m.fromImage,
  toImage: m.toImage,
  platformScope: m.platformScope,
  reason: m.reason
})

const kindLabel = { added: "Added", changed: "Changed", removed: "Removed" } as const
const kindBadge = { added: "badge badge--success", changed: "badge badge--warning", removed: "badge badge--danger" } as const

function ChangeRow({ change, phaseName }: { readonly change: Change; readonly phaseName: (id: string) => string }) {
  return (
    <div className="mrow">
      <div className="mrow__main">
        <span className={kindBadge[change.kind]}>{kindLabel[change.kind]}</span> <code className="mrow__from">{change.fromImage}</code>
        <span aria-hidden="true">→</span>
        <span className="visually-hidden">to</span>
        <code className={change.kind === "removed" ? "mrow__to mrow__to--removed" : "mrow__to"}>{change.toImage}</code>
      </div>
      <div className="mrow__meta">
        {change.platformScope !== undefined && change.platformScope !== "" ? <span>Platform {change.platformScope}</span> : null}
        <span>Phase {phaseName(change.phaseId)}</span>
        {change.before !== undefined ? <span>Was {change.before}</span> : null}
        {change.reason !== undefined && change.reason !== "" ? <span className="mrow__reason">{change.reason}</span> : null}
      </div>
    </div>
  )
}

const summary = (draft: Draft) =>
  `${
    count(draft.added.length, "mapping")
  } added, ${draft.changed.length.toLocaleString()} changed, ${draft.removed.length.toLocaleString()} removed`

export function DraftChanges({ groupId, groupName, draft, loading, error, onRetry, phaseName, onPublished }: {
  readonly groupId: string
  readonly groupName: string
  readonly draft: Draft | undefined
  readonly loading: boolean
  readonly error: ApiError | undefined
  readonly onRetry: () => void
  readonly phaseName: (phaseId: string) => string
  readonly onPublished: () => void
}) {
  const { can } = useSession()
  const toast = useToast()
  const [confirming, setConfirming] = useState(false)
  const publish = useMutation((api, orgId, _: void) => api.policy.publishPolicyGroup({ params: { orgId, groupId: groupIdOf(groupId) } }))
  const changes = draft === undefined ? [] : changesOf(draft)
  const shownInDialog = changes.slice(0, 100)
  return (
    <section className="pg-section" aria-labelledby="pg-changes-title">
      <div className="pg-section__head">
        <h2 id="pg-changes-title">Unpublished changes</h2>
        {can("policy:publish") && changes.length > 0
          ? (
            <button type="button" className="button button--primary" onClick={() => setConfirming(true)}>
              Publish…
            </button>
          )
          : null}
      </div>
      {draft === undefined
        ? loading ? <Loading label="Comparing the draft with the published mappings" /> : <ErrorMessage error={error} onRetry={onRetry} />
        : (
          <>
            <p className="pg-summary">
              {changes.length === 0
                ? `The draft matches the published mappings (${count(draft.unchanged, "mapping")}). Nothing to publish.`
                : `The next publish: ${summary(draft)}; ${count(draft.unchanged, "mapping")} unchanged.`}
            </p>
            {changes.length > 0
              ? (
                <VirtualList
                  label="Unpublished changes"
                  items={changes}
                  itemKey={(c) => c.key}
                  itemText={(c) => `${c.kind} ${mappingText(c)} ${c.before ?? ""}`.toLowerCase()}
                  renderItem={(c) => <ChangeRow change={c} phaseName={phaseName} />}
                  noun={["change", "changes"]}
                />
              )
              : null}
          </>
        )}
      <ConfirmDialog
        open={confirming}
        title={`Publish “${groupName}”?`}
        confirmLabel="Publish"
        mutation={publish}
        onClose={() => setConfirming(false)}
        onConfirm={() => publish.run()}
        onDone={(value) => {
          const c = value.changes
          toast.show(`Published: ${c.created} added, ${c.updated} changed, ${c.removed} removed`)
          onPublished()
        }}
      >
        {draft !== undefined
          ? (
            <>
              <p>
                The draft becomes the published policy of this group at once: {summary(draft)}. No pull or merge requests are opened.
              </p>
              <ul className="pg-confirm-list" aria-label="Changes to publish">
                {shownInDialog.map((c) => (
                  <li key={c.key}>
                    <span className={kindBadge[c.kind]}>{kindLabel[c.kind]}</span> <code>{c.fromImage}</code> → <code>{c.toImage}</code>
                    {c.platformScope !== undefined && c.platformScope !== "" ? ` (${c.platformScope})` : ""}
                    {c.before !== undefined ? <span className="muted">(was {c.before})</span> : null}
                  </li>
                ))}
              </ul>
              {changes.length > shownInDialog.length
                ? <p className="muted">…and {count(changes.length - shownInDialog.length, "more change")}.</p>
                : null}
            </>
          )
          : null}
      </ConfirmDialog>
    </section>
  )
}
