/**
 * One phase's mappings. An internal phase: its draft mappings (every page of them, virtualized,
 * with a filter), a form to add one or edit one (the API's field errors at the field), and remove
 * with a confirmation. An external phase: the mappings its file published (read-only here).
 */
import type { Mapping, PolicyAdministration, PolicyGroup as Core } from "@image-policy/core"
import { type ReactNode, useMemo, useRef, useState } from "react"
import { type ApiError, useMutation } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { EmptyState } from "../../components/EmptyState.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { Loading } from "../../components/Loading.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { type DraftMapping, groupIdOf, mappingIdOf, phaseIdOf, useAllDrafts } from "./data.js"
import { formatDateTime, mappingLabel, mappingText } from "./format.js"
import { VirtualList } from "./VirtualList.js"

type Phase = PolicyAdministration.PhaseSettings

const emptyMapping = { fromImage: "", toImage: "", platformScope: "", reason: "" }
type MappingValues = typeof emptyMapping

/** The POST body: optional fields left out when empty; required ones checked here (the client encodes them). */
const mappingBody = (v: MappingValues): { ok: true; body: Mapping.MappingInput } | { ok: false; fieldErrors: Record<string, string> } => {
  const fieldErrors: Record<string, string> = {}
  const fromImage = v.fromImage.trim()
  const toImage = v.toImage.trim()
  if (fromImage === "") fieldErrors.fromImage = "Enter the image to replace, e.g. node:18."
  if (toImage === "") fieldErrors.toImage = "Enter the exact image to use instead, e.g. node:20.11.1."
  if (fromImage.length > 1024) fieldErrors.fromImage = "Use at most 1,024 characters."
  if (toImage.length > 1024) fieldErrors.toImage = "Use at most 1,024 characters."
  if (v.reason.length > 2000) fieldErrors.reason = "Use at most 2,000 characters."
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors }
  const scope = v.platformScope.trim()
  const reason = v.reason.trim()
  return {
    ok: true,
    body: { fromImage, toImage, ...(scope !== "" ? { platformScope: scope } : {}), ...(reason !== "" ? { reason } : {}) }
  }
}

const localError = (fieldErrors: Record<string, string>): ApiError => ({
  status: 400,
  title: "Invalid",
  detail: "Some fields need attention.",
  fieldErrors
})

export type DraftStatus = "added" | "changed" | "unchanged"

function MappingRow({ m, status, actions }: {
  readonly m: {
    readonly fromImage: string
    readonly toImage: string
    readonly platformScope?: string | undefined
    readonly reason?: string | undefined
  }
  readonly status?: DraftStatus | undefined
  readonly actions?: ReactNode
}) {
  return (
    <div className="mrow">
      <div className="mrow__main">
        {status === "added"
          ? <span className="badge badge--success">New</span>
          : status === "changed"
          ? <span className="badge badge--warning">Changed</span>
          : null} <code className="mrow__from">{m.fromImage}</code>
        <span aria-hidden="true">→</span>
        <span className="visually-hidden">to</span>
        <code className="mrow__to">{m.toImage}</code>
      </div>
      <div className="mrow__meta">
        <span>{m.platformScope !== undefined && m.platformScope !== "" ? `Platform ${m.platformScope}` : "All platforms"}</span>
        {m.reason !== undefined && m.reason !== "" ? <span className="mrow__reason">{m.reason}</span> : null}
      </div>
      {actions !== undefined ? <div className="mrow__actions">{actions}</div> : null}
    </div>
  )
}

export function InternalPhaseMappings({ groupId, phase, draft, onChanged }: {
  readonly groupId: string
  readonly phase: Phase
  readonly draft: PolicyAdministration.DraftView | undefined
  readonly onChanged: () => void
}) {
  const { can } = useSession()
  const toast = useToast()
  const drafts = useAllDrafts(groupId, phase.id)
  const canWrite = can("mappings:write")
  const form = useForm(emptyMapping)
  const [editing, setEditing] = useState<DraftMapping | undefined>()
  const [removing, setRemoving] = useState<DraftMapping | undefined>()
  const [local, setLocal] = useState<ApiError | undefined>()
  const formRef = useRef<HTMLElement>(null)
  const params = { groupId: groupIdOf(groupId), phaseId: phaseIdOf(phase.id) }
  const upsert = useMutation((api, orgId, body: Mapping.MappingInput) =>
    api.policy.upsertDraftMapping({ params: { orgId, ...params }, payload: body })
  )
  const remove = useMutation((api, orgId, id: string) =>
    api.policy.removeDraftMapping({ params: { orgId, ...params, mappingId: mappingIdOf(id) } })
  )
  const status = useMemo(() => {
    const map = new Map<string, DraftStatus>()
    for (const m of draft?.added ?? []) map.set(m.id, "added")
    for (const c of draft?.changed ?? []) map.set(c.after.id, "changed")
    return map
  }, [draft])
  const error = local ?? upsert.error
  const startEdit = (m: DraftMapping) => {
    setEditing(m)
    setLocal(undefined)
    upsert.reset()
    form.setValues({ fromImage: m.fromImage, toImage: m.toImage, platformScope: m.platformScope ?? "", reason: m.reason ?? "" })
    requestAnimationFrame(() => {
      formRef.current?.scrollIntoView({ block: "nearest" })
      formRef.current?.querySelector<HTMLInputElement>("input[name='toImage']")?.focus()
    })
  }
  const stopEdit = () => {
    setEditing(undefined)
    setLocal(undefined)
    upsert.reset()
    form.reset()
  }
  return (
    <section className="pg-section" aria-labelledby="pg-drafts-title">
      <div className="pg-section__head">
        <h2 id="pg-drafts-title">Draft mappings of {phase.name}</h2>
      </div>
      <p className="muted">
        Changes here stay in the draft until the group is published. A mapping is identified by its source image and platform: saving one
        with the same pair replaces it.
      </p>
      {canWrite
        ? (
          <section ref={formRef} className="card pg-mapping-form" aria-labelledby="pg-mapping-form-title">
            <h3 id="pg-mapping-form-title">{editing === undefined ? "Add a mapping" : `Edit ${mappingLabel(editing)}`}</h3>
            <Form
              className="form form--wide"
              submitLabel={editing === undefined ? "Add mapping" : "Save mapping"}
              error={error}
              pending={upsert.pending || remove.pending}
              actions={editing !== undefined ? <button type="button" className="button" onClick={stopEdit}>Cancel edit</button> : null}
              onSubmit={async () => {
                const request = mappingBody(form.values)
                if (!request.ok) {
                  setLocal(localError(request.fieldErrors))
                  return { ok: false }
                }
                setLocal(undefined)
                const outcome = await upsert.run(request.body)
                if (!outcome.ok) return outcome
                drafts.put(outcome.value as DraftMapping)
                // a new source image or platform is another mapping: the edited one goes
                if (editing !== undefined && outcome.value.id !== editing.id) {
                  const removed = await remove.run(editing.id)
                  if (removed.ok) drafts.drop(editing.id)
                  else toast.show(`Saved as a new mapping, but the old one could not be removed: ${removed.error.detail}`, "error")
                }
                toast.show(
                  editing === undefined ? `Mapping ${mappingLabel(outcome.value)} added to the draft` : "Mapping saved in the draft"
                )
                setEditing(undefined)
                form.reset()
                onChanged()
                return outcome
              }}
            >
              <div className="pg-form-grid">
                <Field
                  label="From image"
                  required
                  autoComplete="off"
                  spellCheck={false}
                  hint="The image repositories use now: node:18, registry.example.com/team/base:1.2."
                  {...form.input("fromImage")}
                  error={error?.fieldErrors.fromImage}
                />
                <Field
                  label="To image"
                  required
                  autoComplete="off"
                  spellCheck={false}
                  hint="The exact replacement: a tag or a digest, no wildcard (node:20.11.1, not node)."
                  {...form.input("toImage")}
                  error={error?.fieldErrors.toImage}
                />
                <Field
                  label="Platform scope"
                  autoComplete="off"
                  spellCheck={false}
                  hint="Optional: os/arch[/variant] such as linux/amd64. Empty applies to every platform."
                  {...form.input("platformScope")}
                  error={error?.fieldErrors.platformScope}
                />
                <Field label="Reason" hint="Optional: why the image changes." error={error?.fieldErrors.reason}>
                  {(control) => <textarea {...control} className="input" rows={2} maxLength={2000} {...form.input("reason")} />}
                </Field>
              </div>
            </Form>
          </section>
        )
        : null}
      {drafts.items.length === 0 && drafts.loading
        ? <Loading label="Loading the draft mappings" />
        : (
          <>
            <ErrorMessage error={drafts.error} onRetry={drafts.reload} />
            {drafts.loading ? <Loading label={`Loading the draft mappings (${drafts.items.length.toLocaleString()} so far)`} /> : null}
            <VirtualList
              label={`Draft mappings of ${phase.name}`}
              items={drafts.items}
              itemKey={(m) => m.id}
              itemText={mappingText}
              noun={["draft mapping", "draft mappings"]}
              empty={
                <EmptyState title="No draft mappings in this phase">
                  {canWrite ? "Add the first mapping above." : "Nothing is mapped in this phase's draft."}
                </EmptyState>
              }
              renderItem={(m) => (
                <MappingRow
                  m={m}
                  status={status.get(m.id)}
                  actions={canWrite
                    ? (
                      <>
                        <button type="button" className="button button--small" onClick={() => startEdit(m)}>
                          Edit<span className="visually-hidden">{mappingLabel(m)}</span>
                        </button>
                        <button type="button" className="button button--small" onClick={() => setRemoving(m)}>
                          Delete<span className="visually-hidden">{mappingLabel(m)}</span>
                        </button>
                      </>
                    )
                    : undefined}
                />
              )}
            />
          </>
        )}
      <ConfirmDialog
        target={removing}
        title="Delete this draft mapping?"
        confirmLabel="Delete mapping"
        danger
        mutation={remove}
        onClose={() => setRemoving(undefined)}
        onConfirm={(mapping) => remove.run(mapping.id)}
        onDone={(_, mapping) => {
          toast.show(`Mapping ${mappingLabel(mapping)} deleted from the draft`)
          if (editing?.id === mapping.id) stopEdit()
          drafts.drop(mapping.id)
          onChanged()
        }}
      >
        {removing !== undefined
          ? (
            <p>
              <code>{mappingLabel(removing)}</code>{" "}
              leaves the draft. If it is published, the next publish removes it from the published policy.
            </p>
          )
          : null}
      </ConfirmDialog>
    </section>
  )
}

export function PublishedMappings({ title, mappings, phaseName, empty }: {
  readonly title: string
  readonly mappings: ReadonlyArray<Core.PublishedMapping>
  readonly phaseName?: ((id: string) => string) | undefined
  readonly empty: string
}) {
  return (
    <VirtualList
      label={title}
      items={mappings}
      itemKey={(m) => `${m.phaseId}:${m.id}`}
      itemText={mappingText}
      noun={["published mapping", "published mappings"]}
      empty={<EmptyState title={empty} />}
      renderItem={(m) => (
        <div className="mrow">
          <div className="mrow__main">
            <code className="mrow__from">{m.fromImage}</code>
            <span aria-hidden="true">→</span>
            <span className="visually-hidden">to</span>
            <code className="mrow__to">{m.toImage}</code>
          </div>
          <div className="mrow__meta">
            <span>{m.platformScope !== undefined && m.platformScope !== "" ? `Platform ${m.platformScope}` : "All platforms"}</span>
            {phaseName !== undefined ? <span>Phase {phaseName(m.phaseId)}</span> : null}
            <span>Active from {formatDateTime(m.activeFrom)}</span>
            {m.reason !== undefined && m.reason !== "" ? <span className="mrow__reason">{m.reason}</span> : null}
          </div>
        </div>
      )}
    />
  )
}
