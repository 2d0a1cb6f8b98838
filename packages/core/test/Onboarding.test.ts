import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Onboarding from "../src/Onboarding.js"
import * as Repository from "../src/Repository.js"
import * as Routine from "../src/Routine.js"
import * as Team from "../src/Team.js"
import * as VcsConnection from "../src/VcsConnection.js"
import { prop } from "./support/fcProp.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const connectionId = id<Id.VcsConnectionId>("vcsConnection", 1)
const teamA = id<Id.TeamId>("team", 2)
const teamB = id<Id.TeamId>("team", 3)
const routineId = id<Id.RoutineId>("routine", 4)
const repositoryId = id<Id.RepositoryId>("repository", 5)

const connection: VcsConnection.VcsConnection = {
  id: connectionId,
  provider: "github",
  externalAccountName: "acme",
  status: "active"
}
const providerRepo: VcsConnection.ProviderRepository = { externalRepoId: "1001", fullName: "acme/api", defaultBranch: "main" }
const providerBranches: ReadonlyArray<VcsConnection.AvailableBranch> = [
  { name: "main", isDefault: true },
  { name: "release", isDefault: false },
  { name: "dev", isDefault: false }
]
const team: Team.Team = { id: teamA, name: "Platform" }
const routine: Routine.Routine = { id: routineId, teamId: teamA, name: "Weekly", active: true, intervalDays: 7 }
const request: Onboarding.OnboardRequest = {
  vcsConnectionId: connectionId,
  externalRepoId: "1001",
  assignedTeamId: teamA,
  assignedRoutineId: routineId,
  branchNames: ["main", "release"]
}
const validInput: Onboarding.OnboardingInput = {
  request,
  connection,
  repository: providerRepo,
  branches: providerBranches,
  team,
  routine,
  existing: undefined
}
const existingRepository: Repository.Repository = {
  id: repositoryId,
  vcsConnectionId: connectionId,
  externalRepoId: "1001",
  fullName: "acme/api",
  defaultBranch: "main",
  assignedTeamId: teamB,
  assignedRoutineId: routineId,
  branches: [{ branchName: "main", scan: { status: "succeeded" } }],
  createdAt: "2026-01-01T00:00:00.000Z"
}

const failure = (input: Onboarding.OnboardingInput): Onboarding.OnboardingError => {
  const result = Onboarding.validateOnboarding(input)
  if (Result.isSuccess(result)) return assert.fail("expected an onboarding error")
  return result.failure
}

describe("Onboarding.validateOnboarding", () => {
  it("plans the repository with its branches in request order and one queued scan each", () => {
    const plan = Onboarding.validateOnboarding(validInput)
    assert.deepStrictEqual(
      plan,
      Result.succeed({
        externalRepoId: "1001",
        fullName: "acme/api",
        defaultBranch: "main",
        branches: ["main", "release"],
        scans: [
          { branchName: "main", status: "queued" as const },
          { branchName: "release", status: "queued" as const }
        ]
      })
    )
  })

  const cases: ReadonlyArray<[string, Partial<Onboarding.OnboardingInput>, Onboarding.OnboardingError]> = [
    [
      "an inactive connection",
      { connection: { ...connection, status: "inactive" } },
      new Onboarding.ConnectionNotActive({ vcsConnectionId: connectionId, status: "inactive" })
    ],
    [
      "a connection in error",
      { connection: { ...connection, status: "error" } },
      new Onboarding.ConnectionNotActive({ vcsConnectionId: connectionId, status: "error" })
    ],
    [
      "a repository the provider does not list",
      { repository: undefined },
      new Onboarding.RepositoryNotAvailable({ externalRepoId: "1001" })
    ],
    [
      "a provider repository with another id",
      { repository: { ...providerRepo, externalRepoId: "2002" } },
      new Onboarding.RepositoryNotAvailable({ externalRepoId: "1001" })
    ],
    [
      "an already tracked repository (spec 4.3)",
      { existing: existingRepository },
      new Repository.RepositoryAlreadyTracked({ externalRepoId: "1001", repositoryId })
    ],
    [
      "a branch listed twice",
      { request: { ...request, branchNames: ["main", "release", "main"] } },
      new Onboarding.DuplicateBranchName({ branchName: "main", path: "branchNames[2]" })
    ],
    [
      "branches without the default branch (spec 4.2)",
      { request: { ...request, branchNames: ["release", "dev"] } },
      new Onboarding.DefaultBranchNotIncluded({ defaultBranch: "main", path: "branchNames" })
    ],
    [
      "a branch that does not exist on the provider",
      { request: { ...request, branchNames: ["main", "feature/x"] } },
      new Onboarding.BranchNotAvailable({ branchName: "feature/x", path: "branchNames[1]" })
    ],
    [
      "a routine without a team (spec 4.2)",
      { routine: { ...routine, teamId: null } },
      new Onboarding.RoutineWithoutTeam({ routineId })
    ],
    [
      "a routine of another team (spec 4.2)",
      { routine: { ...routine, teamId: teamB } },
      new Onboarding.RoutineTeamMismatch({ routineId, routineTeamId: teamB, assignedTeamId: teamA })
    ]
  ]

  for (const [name, override, expected] of cases) {
    it(`rejects ${name} with ${expected._tag}`, () => {
      assert.deepStrictEqual(failure({ ...validInput, ...override }), expected)
    })
  }

  it("reports the first failure in the documented order", () => {
    // everything is wrong: the connection wins
    const allWrong: Onboarding.OnboardingInput = {
      ...validInput,
      connection: { ...connection, status: "inactive" },
      repository: undefined,
      existing: existingRepository,
      request: { ...request, branchNames: ["x", "x"] },
      routine: { ...routine, teamId: null }
    }
    assert.strictEqual(failure(allWrong)._tag, "ConnectionNotActive")
    assert.strictEqual(failure({ ...allWrong, connection })._tag, "RepositoryNotAvailable")
    assert.strictEqual(failure({ ...allWrong, connection, repository: providerRepo })._tag, "RepositoryAlreadyTracked")
    const untracked = { ...allWrong, connection, repository: providerRepo, existing: undefined }
    assert.strictEqual(failure(untracked)._tag, "DuplicateBranchName")
    assert.strictEqual(failure({ ...untracked, request: { ...request, branchNames: ["x"] } })._tag, "DefaultBranchNotIncluded")
    assert.strictEqual(failure({ ...untracked, request: { ...request, branchNames: ["main", "x"] } })._tag, "BranchNotAvailable")
    assert.strictEqual(failure({ ...untracked, request })._tag, "RoutineWithoutTeam")
  })

  it("gives each error a readable message that names what is wrong", () => {
    assert.include(failure({ ...validInput, routine: { ...routine, teamId: teamB } }).message, teamB)
    assert.include(failure({ ...validInput, request: { ...request, branchNames: ["release"] } }).message, "main")
  })

  // A provider with some branches, one of them the default, and a request naming a subset that
  // contains the default branch: always a valid plan.
  const validScenario = fc
    .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9/._-]{0,20}$/), { minLength: 1, maxLength: 20 })
    .chain((names) =>
      fc.record({
        names: fc.constant(names),
        defaultIndex: fc.nat({ max: names.length - 1 }),
        picked: fc.shuffledSubarray(names)
      })
    )

  prop("a valid plan always contains the default branch and one queued scan per branch", [validScenario], ([s]) => {
    const defaultBranch = s.names[s.defaultIndex]!
    const rest = s.picked.filter((n) => n !== defaultBranch)
    const branchNames: [string, ...Array<string>] = [defaultBranch, ...rest]
    const result = Onboarding.validateOnboarding({
      ...validInput,
      repository: { ...providerRepo, defaultBranch },
      branches: s.names.map((name) => ({ name, isDefault: name === defaultBranch })),
      request: { ...request, branchNames }
    })
    if (Result.isFailure(result)) return assert.fail(`unexpected ${result.failure._tag}`)
    const plan = result.success
    assert.include(plan.branches, plan.defaultBranch)
    assert.deepStrictEqual(plan.branches, branchNames)
    assert.deepStrictEqual(
      plan.scans,
      branchNames.map((branchName) => ({ branchName, status: "queued" as const }))
    )
  })
})

describe("Onboarding.makeRepository", () => {
  it("creates the tracked repository with every initial branch scan queued (spec section 3)", () => {
    const plan = Result.getOrThrow(Onboarding.validateOnboarding(validInput))
    const repository = Onboarding.makeRepository(plan, {
      id: repositoryId,
      request,
      now: new Date("2026-03-01T12:00:00Z")
    })
    assert.deepStrictEqual(repository, {
      id: repositoryId,
      vcsConnectionId: connectionId,
      externalRepoId: "1001",
      fullName: "acme/api",
      defaultBranch: "main",
      assignedTeamId: teamA,
      assignedRoutineId: routineId,
      branches: [
        { branchName: "main", scan: { status: "queued" } },
        { branchName: "release", scan: { status: "queued" } }
      ],
      createdAt: "2026-03-01T12:00:00.000Z"
    })
    // it is exactly the persisted shape: it round-trips through the schema
    const encoded = Schema.encodeSync(Repository.Repository)(repository)
    assert.deepStrictEqual(Schema.decodeUnknownSync(Repository.Repository)(encoded), repository)
  })
})

describe("Onboarding.OnboardRequest", () => {
  const decode = Schema.decodeUnknownResult(Onboarding.OnboardRequest)
  const body: Onboarding.OnboardRequest = {
    vcsConnectionId: connectionId,
    externalRepoId: "1001",
    assignedTeamId: teamA,
    assignedRoutineId: routineId,
    branchNames: ["main"]
  }

  it("accepts the POST /repositories body", () => {
    assert.deepStrictEqual(decode(body), Result.succeed(body))
  })

  const invalid: ReadonlyArray<[string, unknown]> = [
    ["no branches", { ...body, branchNames: [] }],
    ["an empty branch name", { ...body, branchNames: ["main", ""] }],
    ["a branch name with surrounding blanks", { ...body, branchNames: [" main"] }],
    ["a branch name over 255 characters", { ...body, branchNames: ["b".repeat(256)] }],
    ["more than 100 branches", { ...body, branchNames: Array.from({ length: 101 }, (_, i) => `b${i}`) }],
    ["an empty externalRepoId", { ...body, externalRepoId: "" }],
    ["a team id where a routine id belongs", { ...body, assignedRoutineId: teamA }],
    ["a missing vcsConnectionId", { ...body, vcsConnectionId: undefined }]
  ]
  for (const [name, input] of invalid) {
    it(`rejects ${name}`, () => {
      assert.isTrue(Result.isFailure(decode(input)))
    })
  }

  it("accepts 100 branches of 255 characters", () => {
    const branchNames = Array.from({ length: 100 }, (_, i) => `${i}`.padStart(255, "b"))
    assert.isTrue(Result.isSuccess(decode({ ...body, branchNames })))
  })

  prop("random JSON never throws: it decodes or returns a typed error", [fc.jsonValue()], ([json]) => {
    const result = decode(json)
    assert.isTrue(Result.isFailure(result) || Result.isSuccess(result))
  })

  prop(
    "random branch lists never throw through the schema and the rule",
    [fc.array(fc.string(), { maxLength: 5 }).map((branchNames) => ({ ...body, branchNames }))],
    ([input]) => {
      const decoded = decode(input)
      if (Result.isSuccess(decoded)) {
        const result = Onboarding.validateOnboarding({ ...validInput, request: decoded.success })
        assert.isTrue(Result.isFailure(result) || Result.isSuccess(result))
      }
    }
  )
})
