/**
 * Overview (`/`): the compliance report now (organization totals, out-of-policy findings by policy
 * group and by team) and its daily history (findings, remediation requests, snoozes) as charts,
 * each number leading to the list behind it. The history holds the organization's counts of each
 * day a host wrote a snapshot (`GET .../reports/compliance/history`).
 */
import { useState } from "react"
import { Link } from "wouter"
import { useQuery } from "../api.js"
import { BarList } from "../components/charts/BarList.js"
import { LineChart } from "../components/charts/LineChart.js"
import { seriesOf } from "../components/charts/series.js"
import { EmptyState } from "../components/EmptyState.js"
import { ErrorMessage } from "../components/ErrorMessage.js"
import { Loading } from "../components/Loading.js"
import { Page } from "../components/Page.js"
import { useSession } from "../session.js"

const ranges = [7, 30, 90, 365] as const

function Stat(
  { label, value, href, detail }: {
    readonly label: string
    readonly value: number | string
    readonly href: string
    readonly detail?: string
  }
) {
  return (
    <li className="stat">
      <Link href={href} className="stat__link">
        <span className="stat__value">{value}</span>
        <span className="stat__label">{label}</span>
        {detail !== undefined ? <span className="stat__detail">{detail}</span> : null}
      </Link>
    </li>
  )
}

const formatDateTime = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString("en", { dateStyle: "medium", timeStyle: "short" })
}

export default function Overview() {
  const { can } = useSession()
  const [days, setDays] = useState<number>(30)
  const allowed = can("reports:read")
  const report = useQuery((api, orgId) => api.reports.getComplianceReport({ params: { orgId } }), [])
  const history = useQuery((api, orgId) => api.reports.getComplianceHistory({ params: { orgId }, query: { days } }), [days])

  if (!allowed) {
    return (
      <Page title="Overview">
        <p>Your role does not include reports. Use the navigation to open the pages you may see.</p>
      </Page>
    )
  }

  const org = report.data?.organization
  const points = history.data?.items ?? []
  const dayList = points.map((p) => p.day)
  return (
    <Page
      title="Overview"
      description={report.data !== undefined
        ? `Compliance of the organization, computed ${formatDateTime(report.data.generatedAt)}.`
        : undefined}
    >
      {report.loading && report.data === undefined ? <Loading label="Loading the compliance report" /> : null}
      <ErrorMessage error={report.error} onRetry={report.reload} />
      {org !== undefined
        ? (
          <>
            <h2 className="visually-hidden">Now</h2>
            <ul className="stats">
              <Stat
                label="Findings out of policy"
                value={org.outOfPolicyFindings}
                href="/repositories"
                {...(org.oldestOutOfPolicyScanAt !== null ? { detail: `oldest from ${formatDateTime(org.oldestOutOfPolicyScanAt)}` } : {})}
              />
              <Stat label="Findings without a mapping" value={org.findingsWithoutMapping} href="/policy-groups" />
              <Stat label="Open remediation requests" value={org.openRemediationRequests} href="/repositories" />
              <Stat label="Snooze requests to review" value={org.pendingSnoozes} href="/snooze-requests?status=pending" />
              <Stat label="Active snoozes" value={org.approvedSnoozes} href="/snooze-requests?status=approved" />
              <Stat label="Branches scanned" value={`${org.scannedBranches} / ${org.trackedBranches}`} href="/repositories" />
            </ul>
            <div className="grid-2">
              <div className="card">
                <BarList
                  title="Out of policy by policy group"
                  unit="findings out of policy"
                  empty="No policy group yet."
                  bars={report.data!.policyGroups.map((g) => ({
                    key: g.policyGroupId,
                    label: g.name,
                    value: g.outOfPolicyFindings,
                    href: `/policy-groups/${g.policyGroupId}`,
                    detail: `${g.scannedBranches} of ${g.trackedBranches} branches scanned`
                  }))}
                />
              </div>
              <div className="card">
                <BarList
                  title="Out of policy by team"
                  unit="findings out of policy"
                  empty="No team yet."
                  bars={report.data!.teams.map((t) => ({
                    key: t.teamId,
                    label: t.name,
                    value: t.outOfPolicyFindings,
                    href: `/repositories?teamId=${encodeURIComponent(t.teamId)}`,
                    detail: `${t.openRemediationRequests} open remediation requests`
                  }))}
                />
              </div>
            </div>
          </>
        )
        : null}

      <section className="section" aria-labelledby="history-title">
        <div className="section__header">
          <h2 id="history-title">History</h2>
          <div className="segmented" role="group" aria-label="Days of history">
            {ranges.map((r) => (
              <button
                key={r}
                type="button"
                className="segmented__button"
                aria-pressed={days === r}
                onClick={() => setDays(r)}
              >
                {r} days
              </button>
            ))}
          </div>
        </div>
        {history.loading && history.data === undefined ? <Loading label="Loading the history" /> : null}
        <ErrorMessage error={history.error} onRetry={history.reload} />
        {history.data !== undefined && points.length === 0
          ? (
            <EmptyState title="No history yet">
              The hosts write one snapshot of the report a day; the charts fill in from the first one.
            </EmptyState>
          )
          : null}
        {points.length > 0
          ? (
            <div className="grid-2">
              <div className="card">
                <LineChart
                  title="Findings"
                  description="Out of policy, and without any mapping"
                  days={dayList}
                  series={[
                    { name: "Out of policy", values: points.map((p) => p.outOfPolicyFindings) },
                    { name: "Without a mapping", values: points.map((p) => p.findingsWithoutMapping) }
                  ]}
                />
              </div>
              <div className="card">
                <LineChart
                  title="Out of policy by policy group over time"
                  description="Findings out of policy of each group's own mappings"
                  days={dayList}
                  series={seriesOf(points, (i) => points[i]!.policyGroups, (g) => g.policyGroupId)}
                />
              </div>
              <div className="card">
                <LineChart
                  title="Out of policy by team over time"
                  description="Findings out of policy in each team's repositories"
                  days={dayList}
                  series={seriesOf(points, (i) => points[i]!.teams, (t) => t.teamId)}
                />
              </div>
              <div className="card">
                <LineChart
                  title="Remediation requests"
                  description="Open at the day's snapshot; opened and merged during the day"
                  days={dayList}
                  series={[
                    { name: "Open", values: points.map((p) => p.openRemediationRequests) },
                    { name: "Opened", values: points.map((p) => p.remediationRequestsOpened) },
                    { name: "Merged", values: points.map((p) => p.remediationRequestsMerged) }
                  ]}
                />
              </div>
              <div className="card">
                <LineChart
                  title="Snoozes"
                  description="Awaiting review, and approved and active"
                  days={dayList}
                  series={[
                    { name: "To review", values: points.map((p) => p.pendingSnoozes) },
                    { name: "Active", values: points.map((p) => p.approvedSnoozes) }
                  ]}
                />
              </div>
              <div className="card">
                <LineChart
                  title="Branches"
                  description="Tracked, and scanned"
                  days={dayList}
                  series={[
                    { name: "Tracked", values: points.map((p) => p.trackedBranches) },
                    { name: "Scanned", values: points.map((p) => p.scannedBranches) }
                  ]}
                />
              </div>
            </div>
          )
          : null}
      </section>
    </Page>
  )
}
