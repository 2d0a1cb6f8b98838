import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Assignment from "../src/Assignment.js"
import * as Id from "../src/Id.js"
import { branchName } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

const groupId = (n: number) => Id.make("policyGroup", new Uint8Array(16).fill(n)) as Id.PolicyGroupId
const base = groupId(1)
const security = groupId(2)
const everywhere = groupId(3)
const unknown = groupId(9)

const groupList = [
  { id: base, name: "Base images", applyToAllRepos: false },
  { id: security, name: "Security", applyToAllRepos: false },
  { id: everywhere, name: "Org defaults", applyToAllRepos: true }
]
const groups: ReadonlyMap<Id.PolicyGroupId, Assignment.GroupInfo> = new Map(groupList.map((g) => [g.id, g]))
const trackedBranchNames = ["main", "release", "dev"]

const replace = (assignments: Assignment.AssignmentRequest["assignments"]) =>
  Assignment.replaceAssignments({ request: { assignments }, groups, trackedBranchNames })

const failure = (assignments: Assignment.AssignmentRequest["assignments"]): Assignment.AssignmentError => {
  const result = replace(assignments)
  if (Result.isSuccess(result)) return assert.fail("expected an assignment error")
  return result.failure
}

describe("Assignment.replaceAssignments (spec 4.4-4.6)", () => {
  it("returns the request as the new complete set, order kept", () => {
    const assignments = [
      { policyGroupId: security, branchNames: ["release", "main"] },
      { policyGroupId: base, branchNames: ["dev"] }
    ]
    assert.deepStrictEqual(replace(assignments), Result.succeed(assignments))
  })

  it("an empty assignments array removes every repository-specific assignment (spec 4.4)", () => {
    assert.deepStrictEqual(replace([]), Result.succeed([]))
  })

  const cases: ReadonlyArray<[string, Assignment.AssignmentRequest["assignments"], Assignment.AssignmentError]> = [
    [
      "a group that does not exist in the organization",
      [{ policyGroupId: base, branchNames: ["main"] }, { policyGroupId: unknown, branchNames: ["main"] }],
      new Assignment.PolicyGroupNotFoundInBody({ policyGroupId: unknown, path: "assignments[1].policyGroupId" })
    ],
    [
      "a group that applies to all repositories (spec 4.5)",
      [{ policyGroupId: everywhere, branchNames: ["main"] }],
      new Assignment.AllReposGroupNotAssignable({ policyGroupId: everywhere, path: "assignments[0].policyGroupId" })
    ],
    [
      "a branch that is not tracked (spec 4.6)",
      [{ policyGroupId: base, branchNames: ["main", "feature/x"] }],
      new Assignment.BranchNotTracked({ policyGroupId: base, branchName: "feature/x", path: "assignments[0].branchNames[1]" })
    ],
    [
      "the same group twice",
      [{ policyGroupId: base, branchNames: ["main"] }, { policyGroupId: base, branchNames: ["dev"] }],
      new Assignment.DuplicateAssignment({ policyGroupId: base, path: "assignments[1].policyGroupId" })
    ],
    [
      "an assignment without branches (omit the group to remove it)",
      [{ policyGroupId: security, branchNames: [] }],
      new Assignment.EmptyBranchNames({ policyGroupId: security, path: "assignments[0].branchNames" })
    ],
    [
      "a branch listed twice in one assignment",
      [{ policyGroupId: base, branchNames: ["main", "dev", "main"] }],
      new Assignment.DuplicateBranchInAssignment({
        policyGroupId: base,
        branchName: "main",
        path: "assignments[0].branchNames[2]"
      })
    ]
  ]
  for (const [name, assignments, expected] of cases) {
    it(`rejects ${name} with ${expected._tag}`, () => {
      assert.deepStrictEqual(failure(assignments), expected)
    })
  }

  it("tells the client how to remove a group instead of sending no branches", () => {
    assert.include(failure([{ policyGroupId: security, branchNames: [] }]).message, "omit the group")
  })
})

// --- properties -------------------------------------------------------------------------------

interface Scenario {
  readonly tracked: ReadonlyArray<string>
  readonly groups: ReadonlyMap<Id.PolicyGroupId, Assignment.GroupInfo>
  readonly allRepos: ReadonlyArray<Id.PolicyGroupId>
  readonly assignments: ReadonlyArray<Assignment.RepositoryAssignment>
}

/** Tracked branches, some groups (a few all-repos), and a valid request built from them. */
const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    tracked: fc.uniqueArray(branchName, { minLength: 1, maxLength: 8 }),
    groupNumbers: fc.uniqueArray(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 10 }),
    allReposFlags: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 })
  })
  .chain(({ allReposFlags, groupNumbers, tracked }) => {
    const infos = groupNumbers.map((n, i) => ({ id: groupId(n), applyToAllRepos: allReposFlags[i] === true }))
    const assignable = infos.filter((g) => !g.applyToAllRepos).map((g) => g.id)
    return fc
      .shuffledSubarray(assignable)
      .chain((ids) =>
        fc.tuple(
          ...ids.map((id) => fc.shuffledSubarray([...tracked], { minLength: 1 }).map((branchNames) => ({ policyGroupId: id, branchNames })))
        )
      )
      .map((assignments) => ({
        tracked,
        groups: new Map(infos.map((g) => [g.id, g])),
        allRepos: infos.filter((g) => g.applyToAllRepos).map((g) => g.id),
        assignments
      }))
  })

const run = (s: Scenario, assignments: ReadonlyArray<Assignment.RepositoryAssignment>) =>
  Assignment.replaceAssignments({ request: { assignments }, groups: s.groups, trackedBranchNames: s.tracked })

describe("Assignment.replaceAssignments laws", () => {
  prop("after replacement the assignments equal the request", [scenario], ([s]) => {
    assert.deepStrictEqual(run(s, s.assignments), Result.succeed(s.assignments))
  })

  prop("applying the result again changes nothing (idempotent)", [scenario], ([s]) => {
    const once = Result.getOrThrow(run(s, s.assignments))
    assert.deepStrictEqual(run(s, once), Result.succeed(once))
  })

  prop(
    "any request containing an all-repos group is rejected naming that group",
    [scenario.filter((s) => s.allRepos.length > 0), fc.nat(), fc.nat()],
    ([s, pickGroup, pickPosition]) => {
      const group = s.allRepos[pickGroup % s.allRepos.length]!
      const at = pickPosition % (s.assignments.length + 1)
      const assignments = [...s.assignments]
      assignments.splice(at, 0, { policyGroupId: group, branchNames: [s.tracked[0]!] })
      assert.deepStrictEqual(
        run(s, assignments),
        Result.fail(new Assignment.AllReposGroupNotAssignable({ policyGroupId: group, path: `assignments[${at}].policyGroupId` }))
      )
    }
  )

  prop(
    "any untracked branch is rejected naming the group, the branch and its path",
    [scenario.filter((s) => s.assignments.length > 0), fc.nat(), fc.nat(), branchName],
    ([s, pickAssignment, pickPosition, suffix]) => {
      // a hyphen never occurs in generated tracked names, so this branch is untracked
      const untracked = `untracked-${suffix}`
      const k = pickAssignment % s.assignments.length
      const target = s.assignments[k]!
      const j = pickPosition % (target.branchNames.length + 1)
      const branchNames = [...target.branchNames]
      branchNames.splice(j, 0, untracked)
      const assignments = s.assignments.map((a, i) => (i === k ? { ...a, branchNames } : a))
      assert.deepStrictEqual(
        run(s, assignments),
        Result.fail(
          new Assignment.BranchNotTracked({
            policyGroupId: target.policyGroupId,
            branchName: untracked,
            path: `assignments[${k}].branchNames[${j}]`
          })
        )
      )
    }
  )

  const decodeRequest = Schema.decodeUnknownResult(Assignment.AssignmentRequest)
  const decodeStored = Schema.decodeUnknownResult(Assignment.RepositoryAssignment)
  const decodeItem = Schema.decodeUnknownResult(Assignment.AssignmentViewItem)

  prop("random JSON decoded through the schemas never throws", [fc.jsonValue()], ([json]) => {
    const results: ReadonlyArray<Result.Result<unknown, unknown>> = [
      decodeRequest(json),
      decodeStored(json),
      decodeItem(json),
      decodeRequest({ assignments: json })
    ]
    for (const result of results) {
      assert.isTrue(Result.isFailure(result) || Result.isSuccess(result))
    }
  })

  prop(
    "random decodable requests never throw in the rule: they give a set or a typed error",
    [fc.array(
      fc.record({
        policyGroupId: fc.constantFrom(base, security, everywhere, unknown),
        branchNames: fc.array(fc.string(), { maxLength: 4 })
      }),
      { maxLength: 6 }
    )],
    ([assignments]) => {
      const decoded = decodeRequest({ assignments })
      if (Result.isSuccess(decoded)) {
        const result = Assignment.replaceAssignments({ request: decoded.success, groups, trackedBranchNames })
        if (Result.isFailure(result)) assert.isTrue(Schema.is(Assignment.AssignmentError)(result.failure))
      }
    }
  )
})

describe("Assignment.AssignmentRequest", () => {
  const decode = Schema.decodeUnknownResult(Assignment.AssignmentRequest)
  it("accepts up to 500 assignments and rejects more", () => {
    const many = (n: number) => ({ assignments: Array.from({ length: n }, () => ({ policyGroupId: base, branchNames: ["main"] })) })
    assert.isTrue(Result.isSuccess(decode(many(500))))
    assert.isTrue(Result.isFailure(decode(many(501))))
  })
  it("rejects an empty branch name and a malformed group id", () => {
    assert.isTrue(Result.isFailure(decode({ assignments: [{ policyGroupId: base, branchNames: [""] }] })))
    assert.isTrue(Result.isFailure(decode({ assignments: [{ policyGroupId: "team_abc", branchNames: ["main"] }] })))
  })
})

describe("Assignment.assignmentView", () => {
  const stored: ReadonlyArray<Assignment.RepositoryAssignment> = [
    { policyGroupId: security, branchNames: ["release"] },
    { policyGroupId: base, branchNames: ["main", "dev"] }
  ]
  const alsoEverywhere = { id: groupId(4), name: "Audit", applyToAllRepos: true }

  it("lists all-repos groups first by name with every tracked branch, then explicit ones in stored order", () => {
    const view = Assignment.assignmentView({ groups: [...groupList, alsoEverywhere], assignments: stored, trackedBranchNames })
    assert.deepStrictEqual(view, {
      trackedBranchNames,
      items: [
        { id: alsoEverywhere.id, name: "Audit", source: "all_repositories", branchNames: trackedBranchNames, assignmentState: "active" },
        { id: everywhere, name: "Org defaults", source: "all_repositories", branchNames: trackedBranchNames, assignmentState: "active" },
        { id: security, name: "Security", source: "repository_assignment", branchNames: ["release"], assignmentState: "active" },
        { id: base, name: "Base images", source: "repository_assignment", branchNames: ["main", "dev"], assignmentState: "active" }
      ]
    })
    assert.isTrue(Schema.is(Assignment.AssignmentView)(view))
  })

  it("after an empty replacement only the all-repos groups remain (spec 4.4)", () => {
    const assignments = Result.getOrThrow(replace([]))
    const view = Assignment.assignmentView({ groups: groupList, assignments, trackedBranchNames })
    assert.deepStrictEqual(view.items.map((i) => [i.id, i.source]), [[everywhere, "all_repositories"]])
  })

  it("marks an assignment stale when one of its branches is no longer tracked", () => {
    const view = Assignment.assignmentView({ groups: groupList, assignments: stored, trackedBranchNames: ["main", "release"] })
    const states = view.items.filter((i) => i.source === "repository_assignment").map((i) => [i.id, i.assignmentState])
    assert.deepStrictEqual(states, [[security, "active"], [base, "stale"]])
  })

  it("leaves out assignments of deleted groups and shows a group that became all-repos once", () => {
    const view = Assignment.assignmentView({
      groups: [{ id: base, name: "Base images", applyToAllRepos: true }],
      assignments: stored,
      trackedBranchNames
    })
    assert.deepStrictEqual(view.items.map((i) => [i.id, i.source]), [[base, "all_repositories"]])
  })
})
