/**
 * A group's phases, in order: internal (mappings through the API) or external (a mappings file in
 * a repository, with its last sync and last error, and "Sync now"). A user with `policy:publish`
 * adds, edits and deletes phases here.
 */
import type { Id, PolicyAdministration } from "@image-policy/core"
import { useEffect, useRef, useState } from "react"
import { Link } from "wouter"
import { type ApiError, run, useMutation } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { groupIdOf, phaseIdOf } from "./data.js"
import { formatDateTime } from "./format.js"

type Phase = PolicyAdministration.PhaseSettings

interface Connection {
  readonly id: string
  readonly provider: string
  readonly externalAccountName: string
  readonly status: string
}

function useConnections(): ReadonlyArray<Connection> {
  const { can, session } = useSession()
  const orgId = session.organization.id
  const allowed = can("vcs:read")
  const [items, setItems] = useState<ReadonlyArray<Connection>>([])
  useEffect(() => {
    if (!allowed) return
    let cancelled = false
    void run((api, org) => api.organization.listVcsConnections({ params: { orgId: org }, query: { limit: 200 } }), orgId).then((o) => {
      if (!cancelled && o.ok) setItems(o.value.items)
    })
    return () => {
      cancelled = true
    }
  }, [allowed, orgId])
  return items
}

const emptyPhase = {
  name: "",
  sourceType: "internal",
  vcsConnectionId: "",
  repositoryFullName: "",
  branch: "",
  path: "",
  pollIntervalSeconds: "60"
}
type PhaseValues = typeof emptyPhase

const phaseValues = (p: Phase): PhaseValues => ({
  name: p.name,
  sourceType: p.sourceType,
  vcsConnectionId: p.external?.vcsConnectionId ?? "",
  repositoryFullName: p.external?.repositoryFullName ?? "",
  branch: p.external?.branch ?? "",
  path: p.external?.path ?? "",
  pollIntervalSeconds: String(p.external?.pollIntervalSeconds ?? 60)
})

const phaseRequest = (
  v: PhaseValues
): { ok: true; body: PolicyAdministration.CreatePhaseRequest } | { ok: false; fieldErrors: Record<string, string> } => {
  const fieldErrors: Record<string, string> = {}
  const name = v.name.trim()
  if (name === "") fieldErrors.name = "Enter a name."
  const sourceType = v.sourceType === "external" ? "external" : "internal"
  if (sourceType === "internal") {
    return Object.keys(fieldErrors).length > 0 ? { ok: false, fieldErrors } : { ok: true, body: { name, sourceType } }
  }
  const text = { repositoryFullName: v.repositoryFullName.trim(), branch: v.branch.trim(), path: v.path.trim() }
  if (v.vcsConnectionId === "") fieldErrors["external.vcsConnectionId"] = "Choose the connection that reaches the repository."
  if (text.repositoryFullName === "") fieldErrors["external.repositoryFullName"] = "Enter the repository, e.g. acme/policy."
  if (text.branch === "") fieldErrors["external.branch"] = "Enter the branch, e.g. main."
  if (text.path === "") fieldErrors["external.path"] = "Enter the file's path, e.g. service-mappings.json."
  const poll = Number(v.pollIntervalSeconds.trim())
  if (!Number.isInteger(poll) || poll < 10 || poll > 86_400) {
    fieldErrors["external.pollIntervalSeconds"] = "Enter a whole number of seconds from 10 to 86400."
  }
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors }
  return {
    ok: true,
    body: {
      name,
      sourceType,
      external: { vcsConnectionId: v.vcsConnectionId as Id.VcsConnectionId, ...text, pollIntervalSeconds: poll }
    }
  }
}

function PhaseForm({ groupId, phase, onDone, onCancel }: {
  readonly groupId: string
  readonly phase: Phase | undefined
  readonly onDone: (p: Phase) => void
  readonly onCancel: () => void
}) {
  const form = useForm(phase === undefined ? emptyPhase : phaseValues(phase))
  const connections = useConnections()
  const [local, setLocal] = useState<ApiError | undefined>()
  const save = useMutation((api, orgId, body: PolicyAdministration.CreatePhaseRequest) =>
    phase === undefined
      ? api.policy.createPhase({ params: { orgId, groupId: groupIdOf(groupId) }, payload: body })
      : api.policy.updatePhase({ params: { orgId, groupId: groupIdOf(groupId), phaseId: phaseIdOf(phase.id) }, payload: body })
  )
  const error = local ?? save.error
  const e = error?.fieldErrors ?? {}
  const ref = useRef<HTMLElement>(null)
  useEffect(() => {
    ref.current?.querySelector<HTMLInputElement>("input")?.focus()
  }, [])
  const v = form.values
  const external = v.sourceType === "external"
  const turning = phase !== undefined && phase.sourceType !== v.sourceType
  return (
    <section ref={ref} className="card pg-phase-form" aria-labelledby="pg-phase-form-title">
      <h3 id="pg-phase-form-title">{phase === undefined ? "Add a phase" : `Edit phase ${phase.name}`}</h3>
      <Form
        className="form form--wide"
        submitLabel={phase === undefined ? "Add phase" : "Save phase"}
        error={error}
        pending={save.pending}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
        onSubmit={async () => {
          const request = phaseRequest(v)
          if (!request.ok) {
            setLocal({ status: 400, title: "Invalid", detail: "Some fields need attention.", fieldErrors: request.fieldErrors })
            return { ok: false }
          }
          setLocal(undefined)
          const outcome = await save.run(request.body)
          if (outcome.ok) onDone(outcome.value)
          return outcome
        }}
      >
        <div className="pg-form-grid">
          <Field label="Name" required autoComplete="off" maxLength={200} {...form.input("name")} error={e.name} />
          <Field
            label="Source"
            hint="Internal: mappings edited here and published. External: a mappings file in a repository."
            error={e.sourceType}
          >
            {(control) => (
              <select {...control} className="input" {...form.input("sourceType")}>
                <option value="internal">Internal (edited here)</option>
                <option value="external">External (a mappings file)</option>
              </select>
            )}
          </Field>
        </div>
        {turning
          ? (
            <div className="alert alert--warning">
              <p>
                {v.sourceType === "external"
                  ? "Turning this phase external drops its draft mappings: the file replaces its published mappings at the next sync."
                  : "Turning this phase internal makes its published mappings its drafts."}
              </p>
            </div>
          )
          : null}
        {external
          ? (
            <div className="pg-form-grid">
              <Field label="Connection" required error={e["external.vcsConnectionId"]}>
                {(control) => (
                  <select {...control} className="input" {...form.input("vcsConnectionId")}>
                    <option value="">Choose a connection</option>
                    {v.vcsConnectionId !== "" && !connections.some((c) => c.id === v.vcsConnectionId)
                      ? <option value={v.vcsConnectionId}>{v.vcsConnectionId}</option>
                      : null}
                    {connections.map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.provider}: {c.externalAccountName}
                        {c.status !== "active" ? ` (${c.status})` : ""}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field
                label="Repository"
                required
                autoComplete="off"
                spellCheck={false}
                placeholder="acme/policy"
                {...form.input("repositoryFullName")}
                error={e["external.repositoryFullName"]}
              />
              <Field
                label="Branch"
                required
                autoComplete="off"
                spellCheck={false}
                placeholder="main"
                {...form.input("branch")}
                error={e["external.branch"]}
              />
              <Field
                label="Path of the mappings file"
                required
                autoComplete="off"
                spellCheck={false}
                placeholder="service-mappings.json"
                {...form.input("path")}
                error={e["external.path"]}
              />
              <Field
                label="Poll interval in seconds"
                required
                inputMode="numeric"
                hint="10 to 86400; push webhooks bring changes sooner."
                {...form.input("pollIntervalSeconds")}
                error={e["external.pollIntervalSeconds"]}
              />
            </div>
          )
          : null}
      </Form>
    </section>
  )
}

export function Phases({ groupId, phases, selectedPhaseId, onChanged }: {
  readonly groupId: string
  readonly phases: ReadonlyArray<Phase>
  readonly selectedPhaseId: string | undefined
  readonly onChanged: () => void
}) {
  const { can } = useSession()
  const toast = useToast()
  const canPublish = can("policy:publish")
  const [form, setForm] = useState<"new" | Phase | undefined>()
  const [deleting, setDeleting] = useState<Phase | undefined>()
  const [syncing, setSyncing] = useState<string | undefined>()
  const [syncResult, setSyncResult] = useState<{ phase: string; text: string; failed: boolean } | undefined>()
  const remove = useMutation((api, orgId, id: string) =>
    api.policy.deletePhase({ params: { orgId, groupId: groupIdOf(groupId), phaseId: phaseIdOf(id) } })
  )
  const sync = useMutation((api, orgId, id: string) =>
    api.policy.syncPhase({ params: { orgId, groupId: groupIdOf(groupId), phaseId: phaseIdOf(id) } })
  )
  const syncNow = async (p: Phase) => {
    setSyncing(p.id)
    setSyncResult(undefined)
    const outcome = await sync.run(p.id)
    setSyncing(undefined)
    if (!outcome.ok) {
      setSyncResult({ phase: p.name, text: `Sync of ${p.name} failed: ${outcome.error.detail}`, failed: true })
    } else {
      const r = outcome.value
      const text = r.error !== undefined
        ? `Sync of ${p.name}: the file is not applied: ${r.error}`
        : r.changed
        ? `Sync of ${p.name}: ${r.created} added, ${r.updated} changed, ${r.removed} removed.`
        : `Sync of ${p.name}: no change.`
      setSyncResult({ phase: p.name, text, failed: r.error !== undefined })
    }
    onChanged()
  }
  return (
    <section className="pg-section" aria-labelledby="pg-phases-title">
      <div className="pg-section__head">
        <h2 id="pg-phases-title">Phases</h2>
        {canPublish && form === undefined
          ? <button type="button" className="button" onClick={() => setForm("new")}>Add phase</button>
          : null}
      </div>
      {form !== undefined
        ? (
          <PhaseForm
            key={form === "new" ? "new" : form.id}
            groupId={groupId}
            phase={form === "new" ? undefined : form}
            onCancel={() => setForm(undefined)}
            onDone={(p) => {
              toast.show(form === "new" ? `Phase ${p.name} added` : `Phase ${p.name} saved`)
              setForm(undefined)
              onChanged()
            }}
          />
        )
        : null}
      <div className="pg-live" role="status" aria-live="polite">
        {syncResult !== undefined
          ? <p className={syncResult.failed ? "alert alert--error" : "alert alert--info"}>{syncResult.text}</p>
          : null}
      </div>
      <DataTable
        caption="Phases, in the order they apply"
        rows={phases}
        rowKey={(p) => p.id}
        empty={<EmptyState title="No phases yet">A group needs a phase before it holds mappings.</EmptyState>}
        columns={[
          {
            header: "Phase",
            cell: (p) => (
              <Link
                href={`/policy-groups/${groupId}/phases/${p.id}`}
                aria-current={p.id === selectedPhaseId ? "page" : undefined}
                className={p.id === selectedPhaseId ? "pg-phase pg-phase--current" : "pg-phase"}
              >
                {p.name}
              </Link>
            )
          },
          {
            header: "Source",
            cell: (p) =>
              p.external === undefined ? "Internal" : (
                <span className="pg-file">
                  External: <code>{p.external.repositoryFullName}</code> branch <code>{p.external.branch}</code> file{" "}
                  <code>{p.external.path}</code>
                </span>
              )
          },
          {
            header: "Last sync",
            cell: (p) => p.external === undefined ? <span className="muted">—</span> : formatDateTime(p.external.lastSyncedAt)
          },
          {
            header: "Last error",
            cell: (p) =>
              p.external === undefined ? <span className="muted">—</span> : p.external.lastError === null
                ? <span className="badge badge--success">None</span>
                : <span className="pg-error">{p.external.lastError}</span>
          },
          ...(canPublish
            ? [{
              header: "Actions",
              kind: "actions" as const,
              visuallyHiddenHeader: true,
              cell: (p: Phase) => (
                <span className="pg-actions">
                  {p.sourceType === "external"
                    ? (
                      <button type="button" className="button button--small" onClick={() => syncNow(p)} disabled={syncing !== undefined}>
                        {syncing === p.id ? "Syncing…" : "Sync now"}
                        <span className="visually-hidden">{p.name}</span>
                      </button>
                    )
                    : null}
                  <button type="button" className="button button--small" onClick={() => setForm(p)}>
                    Edit<span className="visually-hidden">phase {p.name}</span>
                  </button>
                  <button type="button" className="button button--small" onClick={() => setDeleting(p)}>
                    Delete<span className="visually-hidden">phase {p.name}</span>
                  </button>
                </span>
              )
            }]
            : [])
        ]}
      />
      <ConfirmDialog
        target={deleting}
        title={`Delete phase ${deleting?.name ?? ""}?`}
        confirmLabel="Delete phase"
        danger
        mutation={remove}
        onClose={() => setDeleting(undefined)}
        onConfirm={(phase) => remove.run(phase.id)}
        onDone={(_, phase) => {
          toast.show(`Phase ${phase.name} deleted`)
          onChanged()
        }}
      >
        <p>The phase goes with its draft mappings, and its published mappings stop applying at once. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  )
}
