// Typed errors shared by every stage. Each carries what the user should do next;
// the CLI prints `message` and `hint` once, at the edge.

export class SchedlabError extends Error {
  /** What the user should do about it, in one or two sentences. */
  readonly hint: string;
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: number;

  constructor(message: string, hint: string, exitCode = 1) {
    super(message);
    this.name = new.target.name;
    this.hint = hint;
    this.exitCode = exitCode;
  }
}

/** Bad command-line or library options. */
export class UsageError extends SchedlabError {
  constructor(message: string, hint = "Run the command with --help to see its options.") {
    super(message, hint, 2);
  }
}

/** The database was written by another schema version of schedlab. */
export class SchemaVersionError extends SchedlabError {}

/** The database file cannot be opened or is locked by another process. */
export class DatabaseUnavailableError extends SchedlabError {}

/** No Go toolchain on PATH, or one too old to trace. */
export class ToolchainMissingError extends SchedlabError {}
