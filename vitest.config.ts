import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url))

// Tests run against the TypeScript sources of every workspace package (no build needed).
const alias = [
  { find: "@image-policy/core", replacement: src("core") },
  { find: "@image-policy/adapters", replacement: src("adapters") },
  // the API definition's modules, `@image-policy/client/api/<Module>`
  { find: /^@image-policy\/client\/api\/(.+)$/, replacement: fileURLToPath(new URL("./packages/client/src/api/$1.ts", import.meta.url)) },
  { find: "@image-policy/client", replacement: src("client") },
  { find: "@image-policy/host", replacement: src("host") }
]

export default defineConfig({
  resolve: { alias },
  test: {
    // vitest's default on 2 cores is ONE worker; most test time is waiting (workers' polls, PostgreSQL,
    // Chromium in its own processes), which a second file fills
    maxWorkers: 2,
    projects: [
      ...["core", "adapters", "host"].map((name) => ({
        resolve: { alias },
        test: {
          name,
          root: `./packages/${name}`,
          include: ["test/**/*.test.ts"],
          // core's and adapters' files start nothing that outlives them and share one module graph
          // (effect): importing it once per worker instead of once per file took core from 218 s to
          // 72 s. host's files start hosts, workers and child processes: each keeps its own process
          isolate: name === "host",
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      })),
      // the web console end to end: its Vite build served by a real host, driven in headless Chromium
      {
        resolve: { alias },
        test: {
          name: "console",
          root: "./packages/console",
          include: ["test/**/*.test.ts"],
          environment: "node",
          // a page in a browser on a busy machine: wait for what a user would see, not for one second
          expect: { poll: { timeout: 15_000, interval: 100 } },
          testTimeout: 120_000,
          hookTimeout: 300_000
        }
      }
    ]
  }
})
