/**
 * Settings -> Organization: general settings (default notification team, cooldown; edition and
 * grants read only), teams and their routines, VCS connections. Each write shows only to users who
 * hold its permission (organization:manage, repositories:manage).
 */
import { usePaged } from "../api.js"
import { Page } from "../components/Page.js"
import { GeneralSection } from "./settings/GeneralSection.js"
import "./settings/settings.css"
import { TeamsSection } from "./settings/TeamsSection.js"
import { VcsSection } from "./settings/VcsSection.js"

export default function OrganizationSettings() {
  const teams = usePaged(
    (api, orgId, cursor) => api.organization.listTeams({ params: { orgId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } }),
    []
  )
  return (
    <Page title="Organization" description="Settings, teams and routines, and VCS connections of the organization.">
      <nav aria-label="Sections of this page" className="section-links">
        <a href="#general-title">General</a>
        <a href="#teams-title">Teams and routines</a>
        <a href="#vcs-title">VCS connections</a>
      </nav>
      <GeneralSection teams={teams.items} />
      <TeamsSection teams={teams} />
      <VcsSection />
    </Page>
  )
}
