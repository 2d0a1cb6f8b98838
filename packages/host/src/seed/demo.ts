/**
 * The demo organization of `npm start` (`serve --demo`): a fixture GitHub account with three
 * repositories, two teams with routines, a policy group with an internal and an external phase,
 * and an all-repositories group. docs/getting-started.md walks through it.
 */
export const demoOrgId = "org_demo"

/** The demo organization's Owner, who signs in to the web console; each start sets a fresh password (Boot.ts). */
export const demoUserEmail = "demo@example.com"

export const demoSeed = {
  organizations: [{
    id: demoOrgId,
    name: "Acme (demo)",
    edition: "enterprise",
    defaultNotificationTeam: "Platform",
    teams: [
      { name: "Platform", routines: [{ name: "Weekly", active: true, intervalDays: 7 }] },
      {
        name: "Payments",
        routines: [{ name: "Daily", active: true, intervalDays: 1 }, { name: "Paused", active: false, intervalDays: 30 }]
      }
    ],
    routinesWithoutTeam: [{ name: "Loose", active: true, intervalDays: 30 }],
    vcsConnections: [
      {
        provider: "github",
        externalAccountName: "acme",
        status: "active",
        fixture: {
          repositories: [
            {
              externalRepoId: "1001",
              fullName: "acme/api",
              defaultBranch: "main",
              branches: ["main", "release"],
              files: { main: { "Dockerfile": "FROM node:20\nRUN npm ci\n" } }
            },
            {
              externalRepoId: "1002",
              fullName: "acme/web",
              defaultBranch: "main",
              branches: ["main", "develop"],
              files: { main: { "Dockerfile": "FROM nginx:1.25\n" } }
            },
            {
              externalRepoId: "1003",
              fullName: "acme/policy",
              defaultBranch: "main",
              branches: ["main"],
              files: { main: { "service-mappings.json": "{\"mappings\":[]}\n" } }
            }
          ]
        }
      },
      {
        provider: "gitlab",
        externalAccountName: "acme-group",
        status: "inactive",
        fixture: { repositories: [{ externalRepoId: "77", fullName: "acme-group/legacy", defaultBranch: "master", branches: ["master"] }] }
      }
    ],
    policyGroups: [
      {
        name: "Base images",
        applyToAllRepos: false,
        notificationTeam: "inherit",
        phases: [
          { name: "Curated", source: "internal" },
          {
            name: "From repo",
            source: "external",
            file: { connection: "acme", repository: "acme/policy", branch: "main", path: "service-mappings.json" }
          }
        ]
      },
      { name: "Everywhere", applyToAllRepos: true, notificationTeam: "none", phases: [{ name: "Baseline", source: "internal" }] }
    ],
    users: [{ email: demoUserEmail, name: "Demo Owner", role: "Owner" }]
  }]
}
