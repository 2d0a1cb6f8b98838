import { existsSync } from "node:fs"
import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/cli.ts", "src/check/main.ts", "src/runtime/node.ts", "src/runtime/deno.ts"].filter((f) => existsSync(f)),
  format: ["esm"],
  target: "es2022",
  platform: "node",
  dts: { compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
  external: [/^@image-policy\//],
  tsconfig: "tsconfig.json"
})
