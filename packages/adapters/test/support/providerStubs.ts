/**
 * Local stand-ins for the GitHub REST v3 and GitLab REST v4 APIs on 127.0.0.1, speaking the
 * documented shapes the adapters rely on: token checks (`Authorization: Bearer` /
 * `PRIVATE-TOKEN`), pagination (`Link: rel="next"` with absolute URLs / `x-next-page`), default
 * branches, base64 file contents with git blob ids, the error bodies of a missing file, branch
 * or repository, branch trees (GitHub's git trees, recursive and truncated past `truncateTreesOver`
 * entries; GitLab's repository tree with offset pagination), and the remediation writes (refs,
 * contents, blobs, trees whose entries name a blob `sha` or carry inline `content`, commits and
 * pulls / branches, commits with actions and `start_sha` / `force`, merge requests) applied to
 * their in-memory repositories. Pull and merge requests are kept in `pullRequests` (one open
 * request per head branch, as both providers insist).
 *
 * Every request is recorded (method, raw path and query, headers, JSON body). `failNext` answers
 * the next requests with a canned answer (401, 403 with rate-limit headers, 429, 500, ...);
 * `setOverride` can answer anything, or `"hang"` to never answer.
 *
 * One module per stub under `stubs/` (`Server.ts` is what both share); tests import them from here.
 */
export { github } from "./stubs/GitHub.js"
export { gitlab } from "./stubs/GitLab.js"
export {
  gitBlobSha,
  manyRepositories,
  repository,
  sha1,
  type Stub,
  type StubAnswer,
  type StubOptions,
  type StubPullRequest,
  type StubRepository,
  type StubRequest
} from "./stubs/Server.js"
