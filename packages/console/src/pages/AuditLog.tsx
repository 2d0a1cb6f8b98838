/** Audit log: placeholder of the shell; the page's engineer fills it in (see packages/console/README.md). */
import { Page } from "../components/Page.js"

export default function AuditLog() {
  return (
    <Page title="Audit log">
      <p className="muted">This page is not built yet.</p>
    </Page>
  )
}
