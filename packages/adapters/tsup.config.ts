import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "es2022",
  platform: "node",
  dts: { compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
  // workspace packages and npm dependencies stay imports, resolved at run time
  external: [/^@image-policy\//],
  tsconfig: "tsconfig.json"
})
