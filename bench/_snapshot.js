// `node bench/_snapshot.js <dir>`: copies the BUILT packages (package.json + dist of core, adapters,
// host) and the host's benchmark server into <dir>, so a later build can be measured against this one
// in the same run: `BENCH_HOST_BASELINE=<dir> npm run bench -- http` adds the snapshot as the server
// "base". Every other dependency is a symlink to this repository's node_modules (same versions).
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL(".", import.meta.url))
const root = resolve(here, "..")
const target = process.argv[2]
if (target === undefined) {
  console.error("usage: node bench/_snapshot.js <dir>")
  process.exit(2)
}
const dir = resolve(target)
rmSync(dir, { recursive: true, force: true })
const modules = join(dir, "node_modules")
mkdirSync(join(modules, "@image-policy"), { recursive: true })
for (const entry of readdirSync(join(root, "node_modules"))) {
  if (entry === "@image-policy" || entry === ".bin") continue
  symlinkSync(join(root, "node_modules", entry), join(modules, entry))
}
for (const pkg of ["core", "adapters", "host"]) {
  const from = join(root, "packages", pkg)
  if (!existsSync(join(from, "dist"))) throw new Error(`packages/${pkg}/dist is missing: run npm run build first`)
  cpSync(join(from, "package.json"), join(modules, "@image-policy", pkg, "package.json"))
  cpSync(join(from, "dist"), join(modules, "@image-policy", pkg, "dist"), { recursive: true })
}
cpSync(join(here, "_http-peers", "host.js"), join(dir, "host.js"))
cpSync(join(here, "_http-peers", "fixture.js"), join(dir, "fixture.js"))
console.log(`snapshot of the built packages in ${dir}`)
