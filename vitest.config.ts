import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url))

// Tests run against the TypeScript sources of every workspace package (no build needed).
const alias = {
  "@image-policy/core": src("core"),
  "@image-policy/adapters": src("adapters"),
  "@image-policy/host": src("host")
}

export default defineConfig({
  resolve: { alias },
  test: {
    projects: ["core", "adapters", "host"].map((name) => ({
      resolve: { alias },
      test: {
        name,
        root: `./packages/${name}`,
        include: ["test/**/*.test.ts"],
        testTimeout: 60_000,
        hookTimeout: 120_000
      }
    }))
  }
})
