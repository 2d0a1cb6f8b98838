/**
 * One snooze request: what it holds back, why, until when, its status and review. A pending
 * request can be approved or rejected with a comment (exceptions:review); a rejected or expired
 * one can be reopened (exceptions:write), which makes it pending again.
 */
import type { SnoozeRequest } from "@image-policy/core"
import { useId, useState } from "react"
import { Link } from "wouter"
import { useMutation, useQuery } from "../../api.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Loading } from "../../components/Loading.js"
import { Page } from "../../components/Page.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { asId, formatDateTime, type RepositoryId, type SnoozeRequestId } from "../repositories/shared.js"
import { SnoozeStatusBadge } from "./status.js"

function Review({ request, onDone }: { readonly request: SnoozeRequest.SnoozeRequest; readonly onDone: () => void }) {
  const toast = useToast()
  const [comment, setComment] = useState("")
  const commentId = useId()
  const [decision, setDecision] = useState<"approve" | "reject" | undefined>()
  const review = useMutation((api, orgId, d: "approve" | "reject") =>
    api.snoozeRequests.reviewSnoozeRequest({
      params: { orgId, snoozeRequestId: asId<SnoozeRequestId>(request.id) },
      payload: { decision: d, ...(comment.trim() !== "" ? { comment } : {}) }
    })
  )
  const tooLong = comment.length > 2000
  const submit = async (d: "approve" | "reject") => {
    if (tooLong) return
    setDecision(d)
    const outcome = await review.run(d)
    if (outcome.ok) {
      toast.show(d === "approve" ? "Snooze request approved" : "Snooze request rejected")
      onDone()
    } else if (outcome.error.status === 409) {
      // someone else reviewed it meanwhile: show what it is now
      onDone()
    }
  }
  const fieldError = tooLong ? "At most 2,000 characters." : review.error?.fieldErrors.comment
  return (
    <section className="card" aria-labelledby="review-title">
      <h2 id="review-title">Review</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void submit("approve")
        }}
        noValidate
      >
        <div className={fieldError !== undefined ? "field field--invalid" : "field"}>
          <label className="field__label" htmlFor={commentId}>Comment</label>
          <p id={`${commentId}-hint`} className="field__hint">Optional: recorded with the decision and shown to the requester.</p>
          <textarea
            id={commentId}
            className="input"
            rows={3}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
            aria-describedby={`${commentId}-hint${fieldError !== undefined ? ` ${commentId}-error` : ""}`}
            aria-invalid={fieldError !== undefined ? true : undefined}
          />
          {fieldError !== undefined ? <p id={`${commentId}-error`} className="field__error">{fieldError}</p> : null}
        </div>
        {review.error !== undefined
          ? (
            <div style={{ marginTop: "0.75rem" }}>
              <ErrorMessage error={review.error} />
            </div>
          )
          : null}
        <div className="form__actions" style={{ marginTop: "0.75rem" }}>
          <button type="submit" className="button button--primary" disabled={review.pending}>
            {review.pending && decision === "approve" ? "Approving…" : "Approve"}
          </button>
          <button type="button" className="button button--danger" disabled={review.pending} onClick={() => void submit("reject")}>
            {review.pending && decision === "reject" ? "Rejecting…" : "Reject"}
          </button>
        </div>
      </form>
    </section>
  )
}

export function SnoozeDetail({ snoozeRequestId }: { readonly snoozeRequestId: string }) {
  const { can } = useSession()
  const toast = useToast()
  const request = useQuery(
    (api, orgId) => api.snoozeRequests.getSnoozeRequest({ params: { orgId, snoozeRequestId: asId<SnoozeRequestId>(snoozeRequestId) } }),
    [snoozeRequestId]
  )
  const repositoryId = request.data?.repositoryId
  const repository = useQuery(
    (api, orgId) =>
      api.repositories.listRepositories({ params: { orgId }, query: { limit: 1, repositoryId: asId<RepositoryId>(repositoryId ?? "-") } }),
    [repositoryId]
  )
  const reopen = useMutation((api, orgId, _: void) =>
    api.snoozeRequests.reopenSnoozeRequest({ params: { orgId, snoozeRequestId: asId<SnoozeRequestId>(snoozeRequestId) } })
  )

  if (request.loading && request.data === undefined) {
    return (
      <Page title="Snooze request">
        <Loading label="Loading the snooze request" />
      </Page>
    )
  }
  const r = request.data
  if (r === undefined) {
    return (
      <Page title="Snooze request not found">
        <ErrorMessage error={request.error} onRetry={request.reload} />
        <Link href="/snooze-requests">Back to snooze requests</Link>
      </Page>
    )
  }
  const repoName = repository.data?.items[0]?.fullName
  const canReopen = (r.status === "rejected" || r.status === "expired") && can("exceptions:write")
  return (
    <Page
      title={`Snooze of ${r.fromImage}`}
      description={<Link href="/snooze-requests">All snooze requests</Link>}
      actions={canReopen
        ? (
          <button
            type="button"
            className="button"
            disabled={reopen.pending}
            onClick={async () => {
              const outcome = await reopen.run()
              if (outcome.ok) {
                toast.show("Snooze request reopened: it is pending again")
                request.reload()
              }
            }}
          >
            {reopen.pending ? "Reopening…" : "Reopen"}
          </button>
        )
        : undefined}
    >
      {reopen.error !== undefined ? <ErrorMessage error={reopen.error} /> : null}
      <div className="snooze-grid">
        <section className="card" aria-labelledby="snooze-facts-title">
          <h2 id="snooze-facts-title">Request</h2>
          <dl className="repo-facts">
            <dt>Status</dt>
            <dd>
              <SnoozeStatusBadge status={r.status} />
            </dd>
            <dt>Repository</dt>
            <dd>
              <Link href={`/repositories/${encodeURIComponent(r.repositoryId)}`}>{repoName ?? r.repositoryId}</Link>
            </dd>
            <dt>Image</dt>
            <dd className="mono repo-wrap">{r.fromImage}</dd>
            <dt>Until</dt>
            <dd>{formatDateTime(r.until)}</dd>
            <dt>Reason</dt>
            <dd style={{ whiteSpace: "pre-wrap" }}>{r.reason}</dd>
            <dt>Requested</dt>
            <dd>{formatDateTime(r.createdAt)}</dd>
            {r.reviewedAt !== null
              ? (
                <>
                  <dt>Reviewed</dt>
                  <dd>{formatDateTime(r.reviewedAt)}</dd>
                  <dt>Review comment</dt>
                  <dd style={{ whiteSpace: "pre-wrap" }}>{r.reviewComment ?? <span className="muted">No comment</span>}</dd>
                </>
              )
              : null}
          </dl>
        </section>
        {r.status === "pending" && can("exceptions:review") ? <Review key={r.id} request={r} onDone={request.reload} /> : null}
      </div>
    </Page>
  )
}
