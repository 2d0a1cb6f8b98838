/**
 * The console's routes. `/sign-in` stands alone (first load: no typed client, no page chunk);
 * every other page is a lazy chunk rendered inside the signed-in `Layout`. Links the service sends
 * (chat messages, core `ConsolePaths`: `/console/org/:orgId/...`) redirect to the same page here.
 */
import { lazy, Suspense } from "react"
import { Redirect, Route, Switch, useParams } from "wouter"
import { Loading } from "./components/Loading.js"
import { Page } from "./components/Page.js"
import { ToastProvider } from "./components/Toast.js"
import { Layout } from "./Layout.js"
import { SessionProvider, useSession } from "./session.js"
import { SignIn } from "./SignIn.js"

const Overview = lazy(() => import("./pages/Overview.js"))
const PolicyGroups = lazy(() => import("./pages/PolicyGroups.js"))
const PolicyGroup = lazy(() => import("./pages/PolicyGroup.js"))
const Repositories = lazy(() => import("./pages/Repositories.js"))
const Repository = lazy(() => import("./pages/Repository.js"))
const Onboard = lazy(() => import("./pages/Onboard.js"))
const SnoozeRequests = lazy(() => import("./pages/SnoozeRequests.js"))
const Webhooks = lazy(() => import("./pages/Webhooks.js"))
const ApiKeys = lazy(() => import("./pages/ApiKeys.js"))
const Members = lazy(() => import("./pages/Members.js"))
const OrganizationSettings = lazy(() => import("./pages/OrganizationSettings.js"))
const AuditLog = lazy(() => import("./pages/AuditLog.js"))
const Account = lazy(() => import("./pages/Account.js"))

function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address. Use the navigation to find what you were looking for.</p>
    </Page>
  )
}

/** `/console/org/:orgId/<rest>` (links in chat messages and events) -> `/<rest>` of this organization. */
function ConsoleLink() {
  const params = useParams<{ orgId: string; "*"?: string }>()
  const { session } = useSession()
  if (params.orgId !== session.organization.id) {
    return (
      <Page title="Another organization">
        <p>
          This link belongs to an organization you are not signed in to. Sign out and sign in to that organization to open it.
        </p>
      </Page>
    )
  }
  const rest = params["*"] ?? ""
  return <Redirect to={`/${rest}`} replace />
}

function SignedIn() {
  return (
    <SessionProvider>
      <Layout>
        <Suspense fallback={<Loading label="Loading the page" />}>
          <Switch>
            <Route path="/" component={Overview} />
            <Route path="/policy-groups" component={PolicyGroups} />
            <Route path="/policy-groups/:groupId" component={PolicyGroup} />
            <Route path="/policy-groups/:groupId/phases/:phaseId" component={PolicyGroup} />
            <Route path="/repositories" component={Repositories} />
            <Route path="/repositories/onboard" component={Onboard} />
            <Route path="/repositories/:repositoryId" component={Repository} />
            <Route path="/snooze-requests" component={SnoozeRequests} />
            <Route path="/snooze-requests/:snoozeRequestId" component={SnoozeRequests} />
            <Route path="/webhooks" component={Webhooks} />
            <Route path="/webhooks/:webhookId" component={Webhooks} />
            <Route path="/audit-log" component={AuditLog} />
            <Route path="/account" component={Account} />
            <Route path="/settings/api-keys" component={ApiKeys} />
            <Route path="/settings/members" component={Members} />
            <Route path="/settings/organization" component={OrganizationSettings} />
            <Route path="/console/org/:orgId/*?" component={ConsoleLink} />
            <Route component={NotFound} />
          </Switch>
        </Suspense>
      </Layout>
    </SessionProvider>
  )
}

export function App() {
  return (
    <ToastProvider>
      <Switch>
        <Route path="/sign-in" component={SignIn} />
        <Route component={SignedIn} />
      </Switch>
    </ToastProvider>
  )
}
