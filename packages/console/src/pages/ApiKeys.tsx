/** API keys: placeholder of the shell; the page's engineer fills it in (see packages/console/README.md). */
import { Page } from "../components/Page.js"

export default function ApiKeys() {
  return (
    <Page title="API keys">
      <p className="muted">This page is not built yet.</p>
    </Page>
  )
}
