/**
 * Deliveries: one destination's (every delivery, with each attempt's status code, duration, outcome
 * and error code, the next retry and dead letters) and the organization's failing ones (dead letters
 * and deliveries waiting for a retry, across destinations). A dead letter can be replayed: it is
 * queued again, due now, with the same CloudEvent id. While a delivery is still being retried the
 * list refreshes itself every few seconds.
 */
import type { Outbox } from "@image-policy/core"
import { useEffect, useState } from "react"
import { Link } from "wouter"
import { type Paged, useMutation, usePaged } from "../../api.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { useToast } from "../../components/Toast.js"
import { attemptError, formatShortTime, formatTime, relative, shortEventType } from "./model.js"

type Delivery = Outbox.WebhookDelivery & {
  readonly type: string | null
  readonly attemptsDetail: ReadonlyArray<Outbox.WebhookDeliveryAttempt>
}

const statusBadge: Record<string, { label: string; className: string }> = {
  pending: { label: "Retrying", className: "badge badge--warning" },
  succeeded: { label: "Delivered", className: "badge badge--success" },
  dead: { label: "Dead letter", className: "badge badge--danger" },
  cancelled: { label: "Cancelled", className: "badge" },
  failed: { label: "Retrying", className: "badge badge--warning" }
}

const StatusBadge = ({ status, attempts }: { readonly status: string; readonly attempts: number }) => {
  const badge = status === "pending" && attempts === 0 ? { label: "Queued", className: "badge" } : statusBadge[status]
  return <span className={badge?.className ?? "badge"}>{badge?.label ?? status}</span>
}

/**
 * What the table shows of a list that refreshes itself: the spinner only for the first load and a
 * "Load more" the user asked for, not for each background refresh (no "Loading…" read out every
 * few seconds).
 */
function useQuiet<A>(paged: Paged<A>) {
  const [more, setMore] = useState(false)
  useEffect(() => {
    if (!paged.loading) setMore(false)
  }, [paged.loading])
  const loadMore = paged.loadMore
  return {
    loading: paged.loading && (paged.items.length === 0 || more),
    loadMore: loadMore === undefined ? undefined : () => {
      setMore(true)
      loadMore()
    }
  }
}

/** Reloads every `ms` while `active` (a delivery is still pending), so retries appear without a click. */
const usePoll = (active: boolean, reload: () => void, ms = 2500) => {
  useEffect(() => {
    if (!active) return
    const timer = window.setInterval(reload, ms)
    return () => window.clearInterval(timer)
  }, [active, reload, ms])
}

const useReplay = (onDone: () => void) => {
  const toast = useToast()
  const replay = useMutation((api, orgId, input: { webhookId: string; eventId: string }) =>
    api.webhooks.replayWebhookDelivery({
      params: { orgId, webhookId: input.webhookId as never, eventId: input.eventId as never }
    })
  )
  const [busy, setBusy] = useState<string | undefined>()
  const run = async (webhookId: string, eventId: string) => {
    setBusy(eventId)
    const outcome = await replay.run({ webhookId, eventId })
    setBusy(undefined)
    if (outcome.ok) toast.show("Replay queued: the delivery is sent again now")
    else toast.show(outcome.error.detail, "error")
    onDone()
  }
  return { run, busy }
}

function Attempts({ delivery }: { readonly delivery: Delivery }) {
  if (delivery.attemptsDetail.length === 0) return <span className="muted">Not tried yet</span>
  return (
    <details className="webhook-attempts">
      <summary>
        {delivery.attemptsDetail.length} attempt{delivery.attemptsDetail.length === 1 ? "" : "s"}
      </summary>
      <ol className="webhook-attempts__list">
        {delivery.attemptsDetail.map((a) => (
          <li key={a.attempt}>
            <time dateTime={a.at}>{formatShortTime(a.at)}</time> <strong>{attemptError(a)}</strong>{" "}
            <span className="muted">{a.durationMs} ms</span>
          </li>
        ))}
      </ol>
    </details>
  )
}

/** One destination's deliveries, newest first, with Replay on dead letters (`webhooks:manage`). */
export function DestinationDeliveries({ webhookId, canReplay, refreshKey }: {
  readonly webhookId: string
  readonly canReplay: boolean
  /** Changes when the page queued something new (a test delivery): the list reads again. */
  readonly refreshKey: number
}) {
  const deliveries = usePaged(
    (api, orgId, cursor) =>
      api.webhooks.listWebhookDeliveries({
        params: { orgId, webhookId: webhookId as never },
        query: { limit: 50, ...(cursor ? { cursor } : {}) }
      }),
    [webhookId, refreshKey]
  )
  const replay = useReplay(deliveries.reload)
  usePoll(deliveries.items.some((d) => d.status === "pending"), deliveries.reload)
  const quiet = useQuiet(deliveries)
  return (
    <section className="webhook-section" aria-labelledby="deliveries-title">
      <div className="webhook-section__header">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" className="button button--small" onClick={deliveries.reload}>Refresh</button>
      </div>
      <DataTable
        caption="Deliveries of this destination"
        rows={deliveries.items}
        rowKey={(d) => d.eventId}
        loading={quiet.loading}
        error={deliveries.error}
        onRetry={deliveries.reload}
        loadMore={quiet.loadMore}
        empty={<EmptyState title="No deliveries yet">Send a test delivery to see what the endpoint answers.</EmptyState>}
        columns={[
          { header: "Event", cell: (d) => <code>{shortEventType(d.type)}</code> },
          { header: "Status", cell: (d) => <StatusBadge status={d.status} attempts={d.attempts} /> },
          { header: "Attempts", kind: "numeric", cell: (d) => d.attempts },
          { header: "Last answer", cell: (d) => lastAnswer(d) },
          { header: "Next retry", cell: (d) => d.status === "pending" && d.nextAttemptAt !== null ? relative(d.nextAttemptAt) : "—" },
          { header: "Updated", cell: (d) => formatTime(d.updatedAt) },
          { header: "History", cell: (d) => <Attempts delivery={d} /> },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (d) =>
              canReplay && d.status === "dead"
                ? (
                  <button
                    type="button"
                    className="button button--small"
                    disabled={replay.busy === d.eventId}
                    onClick={() => replay.run(d.webhookId, d.eventId)}
                  >
                    Replay<span className="visually-hidden">{` the ${shortEventType(d.type)} delivery of ${formatTime(d.updatedAt)}`}</span>
                  </button>
                )
                : null
          }
        ]}
      />
    </section>
  )
}

const lastAnswer = (d: Delivery): string => {
  const last = d.attemptsDetail[d.attemptsDetail.length - 1]
  if (last !== undefined) return attemptError(last)
  return d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : "—"
}

type Filter = "all" | Outbox.FailingStatus

/** The organization's failing deliveries, newest first, filtered by status, with Replay on dead letters. */
export function FailingDeliveries({ canReplay }: { readonly canReplay: boolean }) {
  const [filter, setFilter] = useState<Filter>("all")
  const failing = usePaged(
    (api, orgId, cursor) =>
      api.webhooks.listDeliveries({
        params: { orgId },
        query: { limit: 50, ...(filter !== "all" ? { status: filter } : {}), ...(cursor ? { cursor } : {}) }
      }),
    [filter]
  )
  const replay = useReplay(failing.reload)
  usePoll(failing.items.some((d) => d.status === "failed"), failing.reload, 5000)
  const quiet = useQuiet(failing)
  return (
    <section className="webhook-section" aria-labelledby="failing-title">
      <div className="webhook-section__header">
        <h2 id="failing-title">Failing deliveries</h2>
        <div className="webhook-section__tools">
          <label htmlFor="failing-filter" className="visually-hidden">Show</label>
          <select id="failing-filter" className="input input--compact" value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
            <option value="all">Dead letters and retries</option>
            <option value="dead">Dead letters only</option>
            <option value="failed">Retrying only</option>
          </select>
          <button type="button" className="button button--small" onClick={failing.reload}>Refresh</button>
        </div>
      </div>
      <p className="muted webhook-section__intro">Every destination's deliveries that need attention: dead letters can be replayed.</p>
      <DataTable
        caption="Failing deliveries of the organization"
        rows={failing.items}
        rowKey={(d) => `${d.eventId} ${d.destinationId}`}
        loading={quiet.loading}
        error={failing.error}
        onRetry={failing.reload}
        loadMore={quiet.loadMore}
        empty={<EmptyState title="Nothing is failing">Every delivery went through or is on its way.</EmptyState>}
        columns={[
          {
            header: "Destination",
            cell: (d) =>
              d.destinationName !== null
                ? <Link href={`/webhooks/${d.destinationId}`}>{d.destinationName}</Link>
                : <span className="muted">Deleted destination</span>
          },
          { header: "Event", cell: (d) => <code>{shortEventType(d.type)}</code> },
          { header: "Status", cell: (d) => <StatusBadge status={d.status} attempts={d.attempts} /> },
          { header: "Attempts", kind: "numeric", cell: (d) => d.attempts },
          {
            header: "Last error",
            cell: (d) => d.lastError !== null ? attemptError(d.lastError) : d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : "—"
          },
          { header: "Next retry", cell: (d) => d.status === "failed" ? relative(d.nextAttemptAt) : "—" },
          { header: "Updated", cell: (d) => formatTime(d.updatedAt) },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (d) =>
              canReplay && d.status === "dead" && d.destinationName !== null
                ? (
                  <button
                    type="button"
                    className="button button--small"
                    disabled={replay.busy === d.eventId}
                    onClick={() => replay.run(d.destinationId, d.eventId)}
                  >
                    Replay<span className="visually-hidden">{` the ${shortEventType(d.type)} delivery to ${d.destinationName}`}</span>
                  </button>
                )
                : null
          }
        ]}
      />
    </section>
  )
}
