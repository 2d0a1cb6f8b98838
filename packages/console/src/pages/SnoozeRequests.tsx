/**
 * Snooze requests: the list (oldest first, paged), filtered by status and repository (kept in the
 * address, so a filtered list can be linked), "Request a snooze" for those who may, and at
 * `/snooze-requests/:id` one request with its review (approve or reject with a comment) and reopen.
 */
import type { SnoozeRequest } from "@image-policy/core"
import { useId, useState } from "react"
import { Link, useLocation, useParams, useSearch } from "wouter"
import { usePaged, useQuery } from "../api.js"
import { DataTable } from "../components/DataTable.js"
import { EmptyState } from "../components/EmptyState.js"
import { Page } from "../components/Page.js"
import { useToast } from "../components/Toast.js"
import { useSession } from "../session.js"
import "./repositories/repositories.css"
import { formatDate, formatDateTime } from "./repositories/shared.js"
import { CreateSnooze } from "./snoozes/CreateSnooze.js"
import { SnoozeDetail } from "./snoozes/SnoozeDetail.js"
import { SnoozeStatusBadge, snoozeStatuses, snoozeStatusWords } from "./snoozes/status.js"

const isStatus = (s: string | null): s is SnoozeRequest.SnoozeStatus => s !== null && (snoozeStatuses as ReadonlyArray<string>).includes(s)

function SnoozeList() {
  const { can } = useSession()
  const toast = useToast()
  const [, navigate] = useLocation()
  const search = new URLSearchParams(useSearch())
  const statusParam = search.get("status")
  const status = isStatus(statusParam) ? statusParam : undefined
  const repositoryId = search.get("repositoryId") ?? ""
  const [creating, setCreating] = useState(false)
  const statusId = useId()
  const repoId = useId()

  const repositories = useQuery(
    (api, orgId) => api.repositories.listRepositories({ params: { orgId }, query: { limit: 200 } }),
    []
  )
  const repoItems = repositories.data?.items ?? []
  const repoName = (id: string) => repoItems.find((r) => r.id === id)?.fullName ?? id

  const requests = usePaged(
    (api, orgId, cursor) =>
      api.snoozeRequests.listSnoozeRequests({
        params: { orgId },
        query: {
          limit: 25,
          ...(status !== undefined ? { status } : {}),
          ...(repositoryId !== "" ? { repositoryId } : {}),
          ...(cursor ? { cursor } : {})
        }
      }),
    [status, repositoryId]
  )

  const setFilter = (next: { status?: string; repositoryId?: string }) => {
    const q = new URLSearchParams()
    const s = next.status ?? status ?? ""
    const r = next.repositoryId ?? repositoryId
    if (s !== "") q.set("status", s)
    if (r !== "") q.set("repositoryId", r)
    const text = q.toString()
    navigate(text === "" ? "/snooze-requests" : `/snooze-requests?${text}`, { replace: true })
  }

  const canCreate = can("exceptions:write") && can("repositories:read")
  const filtered = status !== undefined || repositoryId !== ""

  return (
    <Page
      title="Snooze requests"
      description="Exceptions that hold back remediation of one image in one repository until a day, once a reviewer approves them."
      actions={canCreate && !creating
        ? <button type="button" className="button button--primary" onClick={() => setCreating(true)}>Request a snooze</button>
        : undefined}
    >
      {creating
        ? (
          <CreateSnooze
            repositories={repoItems}
            initialRepositoryId={repositoryId}
            onCancel={() => setCreating(false)}
            onCreated={(id) => {
              setCreating(false)
              toast.show("Snooze requested: it is pending review")
              navigate(`/snooze-requests/${encodeURIComponent(id)}`)
            }}
          />
        )
        : null}
      <div className="snooze-filters" role="search" aria-label="Filter snooze requests">
        <div className="field">
          <label className="field__label" htmlFor={statusId}>Status</label>
          <select id={statusId} className="input" value={status ?? ""} onChange={(e) => setFilter({ status: e.currentTarget.value })}>
            <option value="">Any status</option>
            {snoozeStatuses.map((s) => <option key={s} value={s}>{snoozeStatusWords(s)}</option>)}
          </select>
        </div>
        <div className="field">
          <label className="field__label" htmlFor={repoId}>Repository</label>
          <select
            id={repoId}
            className="input"
            value={repositoryId}
            onChange={(e) => setFilter({ repositoryId: e.currentTarget.value })}
          >
            <option value="">Any repository</option>
            {repositoryId !== "" && !repoItems.some((r) => r.id === repositoryId)
              ? <option value={repositoryId}>{repositoryId}</option>
              : null}
            {repoItems.map((r) => <option key={r.id} value={r.id}>{r.fullName}</option>)}
          </select>
        </div>
        {filtered
          ? (
            <button type="button" className="button" onClick={() => navigate("/snooze-requests", { replace: true })}>
              Clear filters
            </button>
          )
          : null}
      </div>
      <DataTable
        caption="Snooze requests"
        paged={requests}
        rowKey={(r) => r.id}
        empty={
          <EmptyState title={filtered ? "No snooze request matches these filters" : "No snooze requests yet"}>
            {filtered ? "Change or clear the filters." : "A snooze holds back the replacement of one image in one repository for a while."}
          </EmptyState>
        }
        columns={[
          {
            header: "Image",
            cell: (r) => (
              <Link href={`/snooze-requests/${encodeURIComponent(r.id)}`} className="mono repo-wrap">
                {r.fromImage}
              </Link>
            )
          },
          { header: "Repository", cell: (r) => repoName(r.repositoryId) },
          { header: "Status", cell: (r) => <SnoozeStatusBadge status={r.status} /> },
          { header: "Until", cell: (r) => formatDate(r.until) },
          { header: "Requested", cell: (r) => formatDateTime(r.createdAt) },
          {
            header: "Actions",
            visuallyHiddenHeader: true,
            kind: "actions",
            cell: (r) => (
              <Link
                href={`/snooze-requests/${encodeURIComponent(r.id)}`}
                className="button button--small"
                aria-label={`${r.status === "pending" && can("exceptions:review") ? "Review" : "Open"} the snooze of ${r.fromImage}`}
              >
                {r.status === "pending" && can("exceptions:review") ? "Review" : "Open"}
              </Link>
            )
          }
        ]}
      />
    </Page>
  )
}

export default function SnoozeRequests() {
  const { snoozeRequestId } = useParams<{ snoozeRequestId?: string }>()
  return snoozeRequestId !== undefined ? <SnoozeDetail snoozeRequestId={decodeURIComponent(snoozeRequestId)} /> : <SnoozeList />
}
