import { defineConfig } from "tsup"

// one file per API module, so `@image-policy/client/api/<Module>` resolves in Node, Deno and bundlers
export default defineConfig({
  entry: ["src/index.ts", "src/api/*.ts"],
  format: ["esm"],
  target: "es2022",
  dts: { compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
  tsconfig: "tsconfig.json"
})
