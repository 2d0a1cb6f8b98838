// Raw node:http: manual routing, key check over a Map, JSON.parse of the body, minimal validation.
import { createServer } from "node:http"
import { host, principals, ready, teamsByOrg, upsert } from "./fixture.js"

const send = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}
const isText = (v, max, min = 0) => typeof v === "string" && v.length >= min && v.length <= max

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  // /api/v1/org/{org}/teams | /api/v1/org/{org}/policy-groups/{g}/phases/{p}/mappings
  const parts = req.url.split("?")[0].split("/")
  const isTeams = req.method === "GET" && parts.length === 6 && parts[5] === "teams"
  const isMappings = req.method === "POST" && parts.length === 10 && parts[5] === "policy-groups" && parts[7] === "phases" &&
    parts[9] === "mappings"
  if (parts[1] !== "api" || parts[2] !== "v1" || parts[3] !== "org" || !(isTeams || isMappings)) return send(res, 404, { status: 404 })
  const key = req.headers["x-api-key"]
  const principal = typeof key === "string" ? principals.get(key) : undefined
  if (principal === undefined) return send(res, 401, { status: 401 })
  if (principal.orgId !== parts[4]) return send(res, 404, { status: 404 })
  if (isTeams) {
    if (!principal.permissions.has("teams:read")) return send(res, 403, { status: 403 })
    return send(res, 200, { items: teamsByOrg.get(parts[4]) ?? [] })
  }
  if (!principal.permissions.has("mappings:write")) return send(res, 403, { status: 403 })
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return send(res, 400, { status: 400 })
    }
    if (
      body === null || typeof body !== "object" || !isText(body.fromImage, 1024, 1) || !isText(body.toImage, 1024, 1) ||
      (body.reason !== undefined && !isText(body.reason, 2000))
    ) return send(res, 400, { status: 400 })
    const { created, mapping } = upsert(body)
    send(res, created ? 201 : 200, mapping)
  })
})

server.listen(0, host, () => ready(server.address().port))
