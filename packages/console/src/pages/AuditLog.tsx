/**
 * The audit log (issue 17, page 8): who changed what and which writes were refused, newest first,
 * paged by cursor; filters (action, actor, resource, time range) kept in the address (shareable,
 * survive a reload) and an export of every row they select as NDJSON.
 */
import type { Audit } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { useMemo, useState } from "react"
import { useLocation, useSearch } from "wouter"
import { type ApiError, usePaged, useQuery } from "../api.js"
import { DataTable } from "../components/DataTable.js"
import { EmptyState } from "../components/EmptyState.js"
import { Field } from "../components/Field.js"
import { Form, useForm } from "../components/Form.js"
import { Page } from "../components/Page.js"
import { useSession } from "../session.js"
import { knownActions, resourceTypes } from "./audit/vocabulary.js"
import "./settings/settings.css"
import { errorAt, formatTime, localError } from "./settings/validate.js"

const filterKeys = ["action", "actor", "resourceType", "resourceId", "from", "to"] as const
type FilterKey = (typeof filterKeys)[number]
type Filters = Partial<Record<FilterKey, string>>

const readFilters = (search: string): Filters => {
  const params = new URLSearchParams(search)
  const out: Filters = {}
  for (const k of filterKeys) {
    const v = params.get(k)
    if (v !== null && v !== "") out[k] = v
  }
  return out
}

/** ISO instant -> the `datetime-local` value of the reader's zone (`2026-04-03T14:05`). */
const toLocalInput = (iso: string | undefined): string => {
  if (iso === undefined) return ""
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ""
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** A `datetime-local` value (reader's zone) -> ISO instant, or "invalid". */
const fromLocalInput = (value: string): string | undefined | "invalid" => {
  if (value.trim() === "") return undefined
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? "invalid" : d.toISOString()
}

export default function AuditLog() {
  const { session, can } = useSession()
  const search = useSearch()
  const [, navigate] = useLocation()
  const filters = useMemo(() => readFilters(search), [search])
  const query = useMemo(() => new URLSearchParams(filters as Record<string, string>).toString(), [filters])

  const events = usePaged(
    (api, orgId, cursor) =>
      api.audit.listAuditEvents({ params: { orgId }, query: { limit: 50, ...filters, ...(cursor ? { cursor } : {}) } }),
    [query]
  )

  // names for ids, when the reader may list members and keys
  const members = useQuery(
    (api, orgId) =>
      can("members:manage") ? api.members.listMembers({ params: { orgId }, query: { limit: 200 } }) : Effect.succeed({ items: [] }),
    []
  )
  const keys = useQuery(
    (api, orgId) =>
      can("api-keys:manage") ? api.apiKeys.listApiKeys({ params: { orgId }, query: { limit: 200 } }) : Effect.succeed({ items: [] }),
    []
  )
  const names = useMemo(() => {
    const m = new Map<string, string>()
    for (const x of members.data?.items ?? []) m.set(x.id, `${x.name} (${x.email})`)
    for (const k of keys.data?.items ?? []) m.set(k.id, `API key “${k.name}”`)
    return m
  }, [members.data, keys.data])

  const actorLabel = (actor: Audit.Actor) =>
    actor.kind === "apiKey"
      ? (
        <div className="cell-stack">
          <span>{names.get(actor.apiKeyId) ?? "API key"}</span>
          <code className="cell-sub">{actor.apiKeyId}</code>
        </div>
      )
      : actor.kind === "member"
      ? (
        <div className="cell-stack">
          <span>{names.get(actor.memberId) ?? "Member"}</span>
          <code className="cell-sub">{actor.memberId}</code>
        </div>
      )
      : <span>System: {actor.name}</span>

  const form = useForm({
    action: filters.action ?? "",
    actor: filters.actor ?? "",
    resourceType: filters.resourceType ?? "",
    resourceId: filters.resourceId ?? "",
    from: toLocalInput(filters.from),
    to: toLocalInput(filters.to)
  })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const error = checkError ?? (events.error?.status === 400 ? events.error : undefined)

  const apply = async () => {
    setCheckError(undefined)
    const v = form.values
    const from = fromLocalInput(v.from)
    const to = fromLocalInput(v.to)
    const text = (s: string) => s.trim().length > 200 ? "At most 200 characters." : undefined
    const local = localError({
      action: text(v.action),
      actor: text(v.actor),
      resourceType: text(v.resourceType),
      resourceId: text(v.resourceId),
      from: from === "invalid" ? "Enter a date and time." : undefined,
      to: to === "invalid"
        ? "Enter a date and time."
        : from !== undefined && from !== "invalid" && to !== undefined && to <= from
        ? "Must be after “From”."
        : undefined
    })
    if (local !== undefined) {
      setCheckError(local)
      return { ok: false }
    }
    const next = new URLSearchParams()
    for (const k of ["action", "actor", "resourceType", "resourceId"] as const) if (v[k].trim() !== "") next.set(k, v[k].trim())
    if (from !== undefined && from !== "invalid") next.set("from", from)
    if (to !== undefined && to !== "invalid") next.set("to", to)
    const qs = next.toString()
    navigate(qs === "" ? "/audit-log" : `/audit-log?${qs}`)
    return { ok: true }
  }

  const clear = () => {
    setCheckError(undefined)
    form.setValues({ action: "", actor: "", resourceType: "", resourceId: "", from: "", to: "" })
    navigate("/audit-log")
  }

  const active = Object.keys(filters).length
  const exportHref = `/api/v1/org/${encodeURIComponent(session.organization.id)}/audit-events/export${query === "" ? "" : `?${query}`}`
  const exportName = `audit-events-${new Date().toISOString().slice(0, 10)}.ndjson`

  return (
    <Page
      title="Audit log"
      description="Who changed what, and which writes were refused. Newest first."
      actions={
        <a className="button" href={exportHref} download={exportName}>
          Export {active > 0 ? "filtered rows" : "all rows"} (NDJSON)
        </a>
      }
    >
      <section className="card" aria-labelledby="audit-filters-title">
        <h2 id="audit-filters-title" className="form-card__title">Filters</h2>
        <Form
          className="form form--filters"
          aria-label="Audit log filters"
          submitLabel="Apply filters"
          error={error}
          onSubmit={apply}
          actions={active > 0 ? <button type="button" className="button" onClick={clear}>Clear filters</button> : undefined}
        >
          <div className="filters">
            <Field
              label="Action"
              list="audit-actions"
              autoComplete="off"
              hint="e.g. api_key.create"
              {...form.input("action")}
              error={errorAt(error, "action")}
            />
            <Field
              label="Actor"
              list="audit-actors"
              autoComplete="off"
              hint="Member id, API key id or system name"
              {...form.input("actor")}
              error={errorAt(error, "actor")}
            />
            <Field
              label="Resource type"
              list="audit-resource-types"
              autoComplete="off"
              hint="e.g. member"
              {...form.input("resourceType")}
              error={errorAt(error, "resourceType")}
            />
            <Field
              label="Resource id"
              autoComplete="off"
              hint="Exact id"
              {...form.input("resourceId")}
              error={errorAt(error, "resourceId")}
            />
            <Field
              label="From"
              type="datetime-local"
              hint="Inclusive, your time zone"
              {...form.input("from")}
              error={errorAt(error, "from")}
            />
            <Field label="To" type="datetime-local" hint="Exclusive, your time zone" {...form.input("to")} error={errorAt(error, "to")} />
          </div>
          <datalist id="audit-actions">{knownActions.map((a) => <option key={a} value={a} />)}</datalist>
          <datalist id="audit-resource-types">{resourceTypes.map((a) => <option key={a} value={a} />)}</datalist>
          <datalist id="audit-actors">{[...names].map(([id, label]) => <option key={id} value={id} label={label} />)}</datalist>
        </Form>
      </section>

      <p className="muted" aria-live="polite">
        {active === 0 ? "Showing every event." : `${active} filter${active === 1 ? "" : "s"} applied.`}
      </p>

      <DataTable
        caption="Audit events"
        paged={events}
        rowKey={(e) => e.id}
        empty={<EmptyState title={active > 0 ? "No event matches these filters" : "No events yet"} />}
        columns={[
          { header: "Time", cell: (e) => <time dateTime={e.at}>{formatTime(e.at)}</time> },
          { header: "Actor", cell: (e) => actorLabel(e.actor) },
          { header: "Action", cell: (e) => <code>{e.action}</code> },
          {
            header: "Resource",
            cell: (e) => (
              <div className="cell-stack">
                <span>{e.resourceType}</span>
                {e.resourceId !== null ? <span className="cell-sub">{names.get(e.resourceId) ?? <code>{e.resourceId}</code>}</span> : null}
              </div>
            )
          },
          {
            header: "Outcome",
            cell: (e) => (
              <div className="cell-stack">
                {e.outcome === "success"
                  ? <span className="badge badge--success">Success</span>
                  : <span className="badge badge--danger">Rejected</span>}
                {e.detail !== null ? <span className="cell-sub">{e.detail}</span> : null}
              </div>
            )
          }
        ]}
      />
    </Page>
  )
}
