import react from "@vitejs/plugin-react"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

const source = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))

// The typed client (effect + the whole /api/v1 definition) comes with the pages, never with the
// sign-in page; it is split into chunks of at most 100 KB gzipped each (issue 17 "Performance",
// test/bundle.test.ts): Effect (runtime, Schema, HTTP client) and the API's schemas. Effect stays
// one chunk: split further, its modules' import cycles run a class before its base is defined.
const chunkOf = (id: string): string | null => {
  const path = id.replaceAll("\\", "/")
  if (/\/node_modules\/effect\//.test(path)) return "effect"
  if (/\/packages\/(client|core)\//.test(path) || /\/node_modules\/@image-policy\/(client|core)\//.test(path)) return "api"
  return null
}

export default defineConfig({
  plugins: [react()],
  // the workspace packages from their ES module sources (as the typecheck sees them): one module per
  // concept, so what the console does not use (the core's scanners and their YAML parser) is left out
  resolve: {
    alias: [
      { find: /^@image-policy\/client\/api\/(.+)$/, replacement: source("client/src/api/$1.ts") },
      { find: /^@image-policy\/client$/, replacement: source("client/src/index.ts") },
      { find: /^@image-policy\/core$/, replacement: source("core/src/index.ts") }
    ]
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      output: {
        codeSplitting: { includeDependenciesRecursively: false, groups: [{ name: chunkOf }] }
      }
    }
  }
})
