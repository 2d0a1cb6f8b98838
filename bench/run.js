// `npm run bench [-- name... [--option value...]]`: runs bench/<name>.js for each name, or every
// benchmark. Arguments from the first `--option` on go to each benchmark's `main` (e.g.
// `npm run bench -- load --rate 500 --duration 30`).
// Benchmarks import the BUILT packages (npm install builds them; `npm run build` after changes).
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL(".", import.meta.url))
const all = readdirSync(here).filter((f) => f.endsWith(".js") && f !== "run.js" && !f.startsWith("_")).map((f) => f.slice(0, -3))
const args = process.argv.slice(2)
const firstOption = args.findIndex((a) => a.startsWith("--"))
const given = firstOption === -1 ? args : args.slice(0, firstOption)
const options = firstOption === -1 ? [] : args.slice(firstOption)
const names = given.length > 0 ? given : all
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${all.join(", ")}`)
    process.exit(2)
  }
}
for (const name of names) {
  console.log(`\n## ${name}`)
  const mod = await import(`./${name}.js`)
  await mod.main(options)
}
