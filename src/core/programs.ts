// What kind of Go program a run comes from, the one type every stage that builds, runs,
// ingests or reports programs shares (corpus discovery decides it; src/corpus re-exports it).

/** A main package (run as a binary) or a test package (run as a `go test -c` binary). */
export type ProgramKind = "main" | "test";
