/** Policy group: placeholder of the shell; the page's engineer fills it in (see packages/console/README.md). */
import { Page } from "../components/Page.js"

export default function PolicyGroup() {
  return (
    <Page title="Policy group">
      <p className="muted">This page is not built yet.</p>
    </Page>
  )
}
