/** Webhooks: placeholder of the shell; the page's engineer fills it in (see packages/console/README.md). */
import { Page } from "../components/Page.js"

export default function Webhooks() {
  return (
    <Page title="Webhooks">
      <p className="muted">This page is not built yet.</p>
    </Page>
  )
}
