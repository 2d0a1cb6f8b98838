// `npm run bench [-- name...]`: runs bench/<name>.js for each name, or every benchmark.
// Benchmarks import the BUILT packages (npm install builds them; `npm run build` after changes).
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL(".", import.meta.url))
const all = readdirSync(here).filter((f) => f.endsWith(".js") && f !== "run.js" && !f.startsWith("_")).map((f) => f.slice(0, -3))
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${all.join(", ")}`)
    process.exit(2)
  }
}
for (const name of names) {
  console.log(`\n## ${name}`)
  const mod = await import(`./${name}.js`)
  await mod.main()
}
