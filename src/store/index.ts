// The store stage: the SQLite database every other stage reads and writes.
export { openDatabase, openExistingDatabase, inTransaction } from "./db.js";
export type { SchedlabDatabase, OpenDatabaseOptions } from "./db.js";
export { SCHEMA_VERSION, SCHEMA_SQL } from "./schema.js";
export { mergeDatabases, MergeConflictError, DERIVED_TABLES } from "./merge.js";
export type { MergeSummary, MergeInputSummary } from "./merge.js";
export { multiRowInsert } from "./insert.js";
