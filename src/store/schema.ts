// The SQLite schema, versioned. docs/schema.md documents every table; keep both in step.
// Invariant: SCHEMA_VERSION changes whenever SCHEMA_SQL changes in a way an older
// schedlab could not read; openDatabase refuses databases of any other version.

import { RECORD_KINDS, type RecordKind } from "../core/index.js";

export const SCHEMA_VERSION = 7;

/**
 * The SQL CASE that maps a record kind's name in `expr` to its event_records.kind code
 * (kindCodeCase) or back (kindNameCase), derived from RECORD_KINDS so the legacy copy, the
 * events view and its insert trigger number kinds as ingest does. Four arms a line, the
 * later lines aligned under the first arm of a CASE written at `column`.
 */
function kindCase(expr: string, column: number, arm: (kind: RecordKind, code: number) => string): string {
  const arms = RECORD_KINDS.map(arm);
  const lines: string[] = [];
  for (let i = 0; i < arms.length; i += 4) lines.push(arms.slice(i, i + 4).join(" "));
  return `CASE ${expr} ${lines.join(`\n${" ".repeat(column + "CASE ".length + expr.length + 1)}`)} END`;
}

const kindCodeCase = (expr: string, column: number): string =>
  kindCase(expr, column, (kind, code) => `WHEN '${kind}' THEN ${code}`);
const kindNameCase = (expr: string, column: number): string =>
  kindCase(expr, column, (kind, code) => `WHEN ${code} THEN '${kind}'`);

/**
 * Version 3 added event_records.stack and the lock_ops table; a version-2 database is
 * refused as older (docs/schema.md). Version 4 added runs.store and the run_end_states
 * table: openDatabase upgrades a version-3 database in place on a writable open
 * (UPGRADE_FROM_3_SQL, then SCHEMA_SQL creates the table); its runs keep their events.
 *
 * A database made before event_records existed keeps its records in a table
 * named events (text columns). openDatabase converts it on a writable open, in one
 * transaction: the table is renamed to LEGACY_EVENTS_TABLE, SCHEMA_SQL creates the compact
 * tables and the events view, COPY_LEGACY_EVENTS_SQL interns the strings, copies the
 * records with codes and drops the old table.
 */
export const LEGACY_EVENTS_TABLE = "events_before_compaction";

export const COPY_LEGACY_EVENTS_SQL = `
INSERT OR IGNORE INTO trace_strings (text) SELECT DISTINCT reason FROM ${LEGACY_EVENTS_TABLE};
INSERT OR IGNORE INTO trace_strings (text) SELECT DISTINCT site FROM ${LEGACY_EVENTS_TABLE} WHERE site IS NOT NULL;
INSERT INTO event_records (run_id, seq, time_ns, kind, gid, actor_gid, reason, site)
  SELECT e.run_id, e.seq, e.time_ns,
         ${kindCodeCase("e.kind", 9)},
         e.gid, e.actor_gid, r.id, s.id
  FROM ${LEGACY_EVENTS_TABLE} e JOIN trace_strings r ON r.text = e.reason LEFT JOIN trace_strings s ON s.text = e.site
  ORDER BY e.run_id, e.seq;
DROP TABLE ${LEGACY_EVENTS_TABLE};
`;

export const UPGRADE_FROM_3_SQL = `
ALTER TABLE runs ADD COLUMN store TEXT NOT NULL DEFAULT 'events' CHECK (store IN ('events', 'summary'));
`;

/**
 * Version 5 added how a run was stopped, what its whole output said of failures and
 * crashes, how it ended untraced, and the runtime's leak profile (runs.stop_reason,
 * output_digest, untraced, leak_profile, and the runtime_goroutines table). Runs of an
 * older database keep NULL there: nothing of the kind was recorded for them.
 */
export const UPGRADE_FROM_4_SQL = `
ALTER TABLE runs ADD COLUMN stop_reason TEXT CHECK (stop_reason IS NULL OR stop_reason IN ('deadline', 'budget', 'hang'));
ALTER TABLE runs ADD COLUMN output_digest TEXT;
ALTER TABLE runs ADD COLUMN untraced TEXT CHECK (untraced IS NULL OR untraced IN ('ok', 'failed', 'crashed'));
ALTER TABLE runs ADD COLUMN leak_profile TEXT;
`;

/**
 * Version 6 added the run_excerpts table (runs stored as excerpts, ingest
 * --max-stored-records): SCHEMA_SQL creates it; runs of an older database are stored whole.
 */

/**
 * The interned strings' table (its DDL, shared by SCHEMA_SQL and the conversions: a
 * database before event_records has none, and the goroutines view refers to it).
 */
export const TRACE_STRINGS_SQL = `
-- Text of event records (block reasons, sites, stacks) and of goroutines (canonical ids,
-- entries, creation sites), interned once per database and shared by all runs; id 0 is "".
-- Rows are only ever added (a re-ingested run may leave unused ones).
CREATE TABLE IF NOT EXISTS trace_strings (
  id   INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO trace_strings (id, text) VALUES (0, '');
`;

/**
 * The goroutines of runs (their DDL, shared by SCHEMA_SQL and the version-7 conversion):
 * the table user_goroutines with its texts as trace_strings ids, and the goroutines view
 * with the texts, the columns of the table before version 7.
 */
const GOROUTINES_SQL = `
-- A user goroutine of one run, with its canonical identity across runs. canonical_id, entry
-- and creation_site are trace_strings ids (entry, creation_site NULL: none): the same texts
-- recur in every run of a program. Readers see the texts through the goroutines view.
CREATE TABLE IF NOT EXISTS user_goroutines (
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  gid           INTEGER NOT NULL,
  canonical_id  INTEGER NOT NULL REFERENCES trace_strings(id),
  parent_gid    INTEGER,
  entry         INTEGER REFERENCES trace_strings(id),
  creation_site INTEGER REFERENCES trace_strings(id),
  is_root       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, gid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS user_goroutines_canonical ON user_goroutines (canonical_id);

-- The goroutines with their texts: the columns of the goroutines table before version 7.
-- Inserting into it interns the texts; deleting from it deletes the goroutines.
CREATE VIEW IF NOT EXISTS goroutines (run_id, gid, canonical_id, parent_gid, entry, creation_site, is_root) AS
  SELECT g.run_id, g.gid, c.text, g.parent_gid, e.text, s.text, g.is_root
  FROM user_goroutines g JOIN trace_strings c ON c.id = g.canonical_id
       LEFT JOIN trace_strings e ON e.id = g.entry LEFT JOIN trace_strings s ON s.id = g.creation_site;
CREATE TRIGGER IF NOT EXISTS goroutines_insert INSTEAD OF INSERT ON goroutines
BEGIN
  INSERT OR IGNORE INTO trace_strings (text) SELECT NEW.canonical_id WHERE NEW.canonical_id IS NOT NULL;
  INSERT OR IGNORE INTO trace_strings (text) SELECT NEW.entry WHERE NEW.entry IS NOT NULL;
  INSERT OR IGNORE INTO trace_strings (text) SELECT NEW.creation_site WHERE NEW.creation_site IS NOT NULL;
  INSERT INTO user_goroutines (run_id, gid, canonical_id, parent_gid, entry, creation_site, is_root)
  VALUES (NEW.run_id, NEW.gid,
          (SELECT id FROM trace_strings WHERE text = NEW.canonical_id),
          NEW.parent_gid,
          (SELECT id FROM trace_strings WHERE text = NEW.entry),
          (SELECT id FROM trace_strings WHERE text = NEW.creation_site),
          coalesce(NEW.is_root, 0));
END;
CREATE TRIGGER IF NOT EXISTS goroutines_delete INSTEAD OF DELETE ON goroutines
BEGIN
  DELETE FROM user_goroutines WHERE run_id = OLD.run_id AND gid = OLD.gid;
END;
`;

/**
 * Version 7 stores the goroutines' texts interned (user_goroutines and the goroutines view,
 * above). A database of version 6 or older keeps them as text in a goroutines table, which
 * openDatabase converts on a writable open, in the transaction of the upgrade, with
 * CONVERT_LEGACY_GOROUTINES_SQL: the old index is dropped, the table renamed to
 * LEGACY_GOROUTINES_TABLE, GOROUTINES_SQL creates the new table and view, the texts are
 * interned, the rows copied with ids, and the old table dropped. Every row is kept, with
 * the same texts (NULL stays NULL, "" is id 0).
 */
export const LEGACY_GOROUTINES_TABLE = "goroutines_before_interning";

export const CONVERT_LEGACY_GOROUTINES_SQL = `
DROP INDEX IF EXISTS goroutines_canonical;
ALTER TABLE goroutines RENAME TO ${LEGACY_GOROUTINES_TABLE};
${TRACE_STRINGS_SQL}
${GOROUTINES_SQL}
INSERT OR IGNORE INTO trace_strings (text)
  SELECT canonical_id FROM ${LEGACY_GOROUTINES_TABLE}
  UNION SELECT entry FROM ${LEGACY_GOROUTINES_TABLE} WHERE entry IS NOT NULL
  UNION SELECT creation_site FROM ${LEGACY_GOROUTINES_TABLE} WHERE creation_site IS NOT NULL;
INSERT INTO user_goroutines (run_id, gid, canonical_id, parent_gid, entry, creation_site, is_root)
  SELECT o.run_id, o.gid, c.id, o.parent_gid, e.id, s.id, o.is_root
  FROM ${LEGACY_GOROUTINES_TABLE} o JOIN trace_strings c ON c.text = o.canonical_id
       LEFT JOIN trace_strings e ON e.text = o.entry LEFT JOIN trace_strings s ON s.text = o.creation_site
  ORDER BY o.run_id, o.gid;
DROP TABLE ${LEGACY_GOROUTINES_TABLE};
`;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- A program: one main package, one test package, or one test function of a test
-- package (with --split-tests). name is the directory relative to the root given
-- to collect (prefixed with the corpus label for a test corpus), plus "#TestName" for a
-- split test. Two roots never share a name: collect refuses a clash.
CREATE TABLE IF NOT EXISTS programs (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  root        TEXT NOT NULL,
  dir         TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('main', 'test')),
  test_name   TEXT,
  source_hash TEXT NOT NULL,
  manifest    TEXT
);

-- A root directory given to collect, with the label its programs are known by. role
-- 'test' marks a test corpus (collect --test-corpus, run --test-corpus): its programs are
-- named "<label>/<path>", never trained on, and evaluated when a holdout selects them
-- (--holdout corpus:DIR). Programs whose root has no row belong to a training corpus
-- labelled by the root's base name.
CREATE TABLE IF NOT EXISTS corpora (
  root  TEXT PRIMARY KEY,
  label TEXT NOT NULL UNIQUE,
  role  TEXT NOT NULL CHECK (role IN ('train', 'test'))
);

-- One build of a program for one configuration (e.g. "procs-2").
CREATE TABLE IF NOT EXISTS builds (
  id          INTEGER PRIMARY KEY,
  program_id  INTEGER NOT NULL REFERENCES programs(id) ON DELETE CASCADE,
  config      TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('ok', 'error')),
  output      TEXT,
  source_hash TEXT NOT NULL,
  go_version  TEXT,
  built_at    TEXT NOT NULL,
  UNIQUE (program_id, config)
);

-- One traced execution. ingest_status is NULL until the trace is decoded.
CREATE TABLE IF NOT EXISTS runs (
  id            INTEGER PRIMARY KEY,
  program_id    INTEGER NOT NULL REFERENCES programs(id) ON DELETE CASCADE,
  config        TEXT NOT NULL,
  procs         INTEGER NOT NULL,
  run_index     INTEGER NOT NULL,
  outcome       TEXT NOT NULL CHECK (outcome IN ('ok', 'exit-error', 'panic', 'timeout', 'build-error', 'killed')),
  exit_code     INTEGER,
  wall_ms       REAL,
  trace_path    TEXT,
  trace_sha256  TEXT,
  trace_bytes   INTEGER,
  dump_path     TEXT,
  stderr_tail   TEXT,
  go_version    TEXT,
  env           TEXT,
  -- How the schedule was explored: 'plain' (an unperturbed build), 'race' (a -race build)
  -- or 'perturb' (seeded yields and sleeps injected through the overlay; seed says which).
  -- Distributions and training read plain runs unless asked (the others change the
  -- scheduler's distribution).
  strategy      TEXT NOT NULL DEFAULT 'plain' CHECK (strategy IN ('plain', 'race', 'perturb')),
  seed          INTEGER,
  truncated     INTEGER NOT NULL DEFAULT 0,
  ingest_status TEXT CHECK (ingest_status IS NULL OR ingest_status IN ('ok', 'truncated', 'error')),
  ingest_error  TEXT,
  created_at    TEXT NOT NULL,
  -- What ingest kept of the run (ingest --store): 'events' (event_records and lock_ops) or
  -- 'summary' (only its goroutines and its folded end state in run_end_states: enough for
  -- leaks and replay, not for the stages that read events). Meaningful once ingest_status is set.
  store         TEXT NOT NULL DEFAULT 'events' CHECK (store IN ('events', 'summary')),
  -- Why the run was stopped before it ended by itself (NULL: it ended by itself): 'deadline'
  -- (its deadline: -test.timeout, the harness's, or schedlab's kill after it), 'budget' (a
  -- main program given the rest of a hunt's budget, which never exited: a daemon's lifetime),
  -- 'hang' (the runtime's goroutine leak profile proved that goroutine 1 can never go on, so
  -- the run agent stopped it; docs/collect.md).
  stop_reason   TEXT CHECK (stop_reason IS NULL OR stop_reason IN ('deadline', 'budget', 'hang')),
  -- The lines of the run's whole output (stdout and stderr, streamed) that tell its failures
  -- and crashes: failed tests with their logs, examples' got/want, panics and fatal errors
  -- with their headers and the stacks that name a test (collect's output digest, docs/collect.md).
  output_digest TEXT,
  -- How the same binary ended when rerun once without the tracer after a traced run crashed
  -- (a fatal error or signal): 'ok' (the crash is the tracer's), 'failed', 'crashed'; NULL: not rerun.
  untraced      TEXT CHECK (untraced IS NULL OR untraced IN ('ok', 'failed', 'crashed')),
  -- The goroutine leak profile the run agent wrote (debug=2 text), NULL without one.
  leak_profile  TEXT,
  UNIQUE (program_id, config, run_index)
);

-- The goroutines of a run's goroutine leak profile (runtime/pprof "goroutineleak", taken by
-- the run agent at the run's end, at a proven hang, or just before the deadline: taken):
-- every goroutine the profile shows waiting, by runtime id (the trace's gid), with the
-- runtime's wait reason and whether the garbage collector proved it leaked (blocked on a
-- concurrency primitive no runnable goroutine or global can reach). top: the innermost frame
-- outside the runtime and the standard library, "function file:line" (NULL: none).
CREATE TABLE IF NOT EXISTS runtime_goroutines (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  gid     INTEGER NOT NULL,
  taken   TEXT NOT NULL CHECK (taken IN ('end', 'hang', 'deadline')),
  wait    TEXT NOT NULL,
  leaked  INTEGER NOT NULL CHECK (leaked IN (0, 1)),
  top     TEXT,
  PRIMARY KEY (run_id, gid)
) WITHOUT ROWID;

${TRACE_STRINGS_SQL}
${GOROUTINES_SQL}
-- Decoded records of user goroutines, in trace order, stored compactly (docs/schema.md):
-- kind is a record-kind code (0-5 the six event types GoCreate GoStart GoBlock GoUnblock
-- GoSched GoEnd, 6-9 the non-event records SyscallEnter SyscallExit SyscallUnblock
-- Initial); reason and site are trace_strings ids (site NULL: none); stack is a GoBlock's
-- stack string's id (0: the trace gave none), NULL for every other kind. seq numbers all
-- records of a run. Readers in src/ go through src/trace/load.ts.
CREATE TABLE IF NOT EXISTS event_records (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  time_ns   INTEGER NOT NULL,
  kind      INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 9),
  gid       INTEGER NOT NULL,
  actor_gid INTEGER,
  reason    INTEGER NOT NULL DEFAULT 0 REFERENCES trace_strings(id),
  site      INTEGER REFERENCES trace_strings(id),
  stack     INTEGER REFERENCES trace_strings(id),
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- Lock operations logged by collect --budget's lock instrumentation (docs/events.md), not
-- records: an op comes just before the run's record numbered seq (seq = the run's record
-- count for ops after the last record); ord numbers the ops sharing one seq, in order.
-- lock is the mutex's hex address (unique within the run only); site and stack are
-- trace_strings ids (NULL: none). Readers in src/ go through src/trace/load.ts.
CREATE TABLE IF NOT EXISTS lock_ops (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  ord     INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  gid     INTEGER NOT NULL,
  phase   TEXT NOT NULL CHECK (phase IN ('want', 'got', 'drop')),
  mode    TEXT NOT NULL CHECK (mode IN ('w', 'r')),
  lock    TEXT NOT NULL,
  site    INTEGER REFERENCES trace_strings(id),
  stack   INTEGER REFERENCES trace_strings(id),
  PRIMARY KEY (run_id, seq, ord)
) WITHOUT ROWID;

-- The end state of a run ingested with --store summary: what runStateFold concludes from
-- all its records and lock operations (each goroutine's state when the trace stopped, its
-- final block, its wake-ups, the run's locks; src/model/end-state-codec.ts), as JSON whose
-- goroutines are the run's gids (named by the goroutines table) and whose texts are in a
-- table of its own. records: how many records the trace gave (none of them stored);
-- format: the codec's version.
CREATE TABLE IF NOT EXISTS run_end_states (
  run_id  INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  records INTEGER NOT NULL,
  format  INTEGER NOT NULL,
  states  TEXT NOT NULL
);

-- The windows of a run stored as an excerpt (ingest --max-stored-records, docs/schema.md
-- "Excerpts"): its trace gave more records than the cap, so event_records holds only windows
-- spread along the run, numbered densely from 0, each after a gap opening with Initial records
-- that bring the goroutines to their state at the window's start; its end state comes from
-- every record (run_end_states). One row per window: first_seq is the window's first stored
-- seq, source_seq the seq its first record of the run has in the whole run, events_before the
-- six-type events of the whole run before that record; records and events are the whole run's
-- (the same in every row). A run with no row here is stored whole.
CREATE TABLE IF NOT EXISTS run_excerpts (
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  first_seq     INTEGER NOT NULL,
  source_seq    INTEGER NOT NULL,
  events_before INTEGER NOT NULL,
  records       INTEGER NOT NULL,
  events        INTEGER NOT NULL,
  PRIMARY KEY (run_id, first_seq)
) WITHOUT ROWID;

-- @section collect (budgeted schedule exploration: collect --budget, --replay)
-- The cheap check collect --budget makes right after each run it executes (and each
-- replay): finding 'blocked' (a user goroutine's last record is a block with a leak
-- reason), 'race' (the race detector reported), or NULL; detail is the RunCheck as JSON.
-- timeout_ms is the run's deadline, so a replay can use the same one; replay_of is the
-- run a replay reran (no foreign key: that run may be gone).
CREATE TABLE IF NOT EXISTS run_checks (
  run_id     INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  timeout_ms INTEGER NOT NULL,
  finding    TEXT CHECK (finding IS NULL OR finding IN ('blocked', 'race')),
  detail     TEXT NOT NULL,
  replay_of  INTEGER
);

-- One program's budgeted exploration: its budget, the wall time its runs and their checks
-- took (summed over every collect --budget of it; builds are not counted), and how it
-- ended. finding_run_id is the first run whose check confirmed a finding; unavailable is a
-- JSON array of the strategies that could not be built, with the compiler's first words.
CREATE TABLE IF NOT EXISTS explorations (
  program_id     INTEGER PRIMARY KEY REFERENCES programs(id) ON DELETE CASCADE,
  budget_ms      INTEGER NOT NULL,
  spent_ms       REAL NOT NULL,
  runs           INTEGER NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('exploring', 'confirmed', 'exhausted', 'build-error')),
  finding_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  unavailable    TEXT NOT NULL DEFAULT '[]',
  updated_at     TEXT NOT NULL
);

-- The records with their text, for SQL by hand: the columns of the original events table,
-- and the stack. Inserting into it interns the strings; deleting from it deletes the records.
CREATE VIEW IF NOT EXISTS events (run_id, seq, time_ns, kind, gid, actor_gid, reason, site, stack) AS
  SELECT e.run_id, e.seq, e.time_ns,
         ${kindNameCase("e.kind", 9)},
         e.gid, e.actor_gid, r.text, s.text, k.text
  FROM event_records e JOIN trace_strings r ON r.id = e.reason LEFT JOIN trace_strings s ON s.id = e.site
       LEFT JOIN trace_strings k ON k.id = e.stack;
CREATE TRIGGER IF NOT EXISTS events_insert INSTEAD OF INSERT ON events
BEGIN
  INSERT OR IGNORE INTO trace_strings (text) VALUES (coalesce(NEW.reason, ''));
  INSERT OR IGNORE INTO trace_strings (text) SELECT NEW.site WHERE NEW.site IS NOT NULL;
  INSERT OR IGNORE INTO trace_strings (text) SELECT NEW.stack WHERE NEW.stack IS NOT NULL;
  INSERT INTO event_records (run_id, seq, time_ns, kind, gid, actor_gid, reason, site, stack)
  VALUES (NEW.run_id, NEW.seq, NEW.time_ns,
          ${kindCodeCase("NEW.kind", 10)},
          NEW.gid, NEW.actor_gid,
          (SELECT id FROM trace_strings WHERE text = coalesce(NEW.reason, '')),
          (SELECT id FROM trace_strings WHERE text = NEW.site),
          (SELECT id FROM trace_strings WHERE text = NEW.stack));
END;
CREATE TRIGGER IF NOT EXISTS events_delete INSTEAD OF DELETE ON events
BEGIN
  DELETE FROM event_records WHERE run_id = OLD.run_id AND seq = OLD.seq;
END;

-- @section dataset (samples, states, distributions, splits)
-- States of each abstraction per program, with next-event counts. For the pooled
-- abstraction (context) one state id has a row per program; loaders sum them.
-- rep_run_id/rep_end locate the representative prefix (records[0 .. rep_end) of that run);
-- prefix_hash is its content hash (program, procs, goroutine ids, records), the cache key.
CREATE TABLE IF NOT EXISTS states (
  abstraction TEXT NOT NULL,
  program_id  INTEGER NOT NULL REFERENCES programs(id) ON DELETE CASCADE,
  key         TEXT NOT NULL,
  state_id    TEXT NOT NULL,
  n_gocreate  INTEGER NOT NULL,
  n_gostart   INTEGER NOT NULL,
  n_goblock   INTEGER NOT NULL,
  n_gounblock INTEGER NOT NULL,
  n_gosched   INTEGER NOT NULL,
  n_goend     INTEGER NOT NULL,
  runs        INTEGER NOT NULL,
  rep_run_id  INTEGER NOT NULL,
  rep_end     INTEGER NOT NULL,
  prefix_hash TEXT NOT NULL,
  PRIMARY KEY (abstraction, program_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS states_by_id ON states (state_id);

-- One row per sample: in run run_id, after records[0 .. position), the next event was next.
CREATE TABLE IF NOT EXISTS samples (
  abstraction TEXT NOT NULL,
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  state_id    TEXT NOT NULL,
  next        TEXT NOT NULL,
  PRIMARY KEY (abstraction, run_id, position, state_id)
) WITHOUT ROWID;

-- What each (abstraction, program) was last built from; a build is skipped when the
-- hash of its inputs (ingested runs and their records) is unchanged.
CREATE TABLE IF NOT EXISTS dataset_inputs (
  abstraction TEXT NOT NULL,
  program_id  INTEGER NOT NULL REFERENCES programs(id) ON DELETE CASCADE,
  input_hash  TEXT NOT NULL,
  built_at    TEXT NOT NULL,
  PRIMARY KEY (abstraction, program_id)
) WITHOUT ROWID;

-- Named held-out program sets (schedlab --holdout NAME); programs is a JSON array of names.
CREATE TABLE IF NOT EXISTS holdouts (
  name       TEXT PRIMARY KEY,
  spec       TEXT NOT NULL,
  programs   TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- @section predict (prediction cache)
-- Cached predictions: one row per (predictor spec, configuration hash, prefix hash): a
-- predictor sees a state only through its representative prefix, so the content of the
-- prefix, not the state id, decides whether a cached answer applies. state_id is the state
-- first answered, for reading the table. probabilities is a JSON array in EVENT_TYPES
-- order; tags is JSON or NULL.
CREATE TABLE IF NOT EXISTS predictions (
  predictor     TEXT NOT NULL,
  config_hash   TEXT NOT NULL,
  prefix_hash   TEXT NOT NULL,
  state_id      TEXT NOT NULL,
  probabilities TEXT NOT NULL,
  tags          TEXT,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (predictor, config_hash, prefix_hash)
) WITHOUT ROWID;

-- @section eval (evaluation results)
-- One \`schedlab eval\` invocation: the states it scored (abstraction, holdout) and its
-- options as JSON. Results and comparisons hang off it; the report reads the latest.
CREATE TABLE IF NOT EXISTS eval_runs (
  id          INTEGER PRIMARY KEY,
  created_at  TEXT NOT NULL,
  abstraction TEXT NOT NULL,
  holdout     TEXT NOT NULL,
  states      INTEGER NOT NULL,
  samples     INTEGER NOT NULL,
  programs    INTEGER NOT NULL,
  options     TEXT NOT NULL
);

-- One predictor's metrics in one eval run. The headline numbers are columns (NULL when
-- undefined, e.g. a correlation over constant predictions); metrics holds the full
-- PredictorEvaluation as JSON (per-event scores, confusion, reliability bins, entropy points).
CREATE TABLE IF NOT EXISTS eval_results (
  eval_run_id      INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  position         INTEGER NOT NULL,
  predictor        TEXT NOT NULL,
  config_hash      TEXT NOT NULL,
  accuracy         REAL,
  mode_accuracy    REAL,
  ceiling          REAL,
  ceiling_loo      REAL,
  majority         REAL,
  macro_f1         REAL,
  ece              REAL,
  brier            REAL,
  nll              REAL,
  kl               REAL,
  l1               REAL,
  entropy_spearman REAL,
  entropy_pearson  REAL,
  metrics          TEXT NOT NULL,
  PRIMARY KEY (eval_run_id, predictor)
);

-- Paired comparison of two predictors of one eval run: accuracy difference (A − B) with
-- its cluster-bootstrap interval, the cluster sign-flip test's p-value (cluster_p, the
-- reported one) and McNemar's p-value, which assumes independent samples (mcnemar_p);
-- details is the full JSON.
CREATE TABLE IF NOT EXISTS eval_comparisons (
  eval_run_id INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  predictor_a TEXT NOT NULL,
  predictor_b TEXT NOT NULL,
  difference  REAL,
  ci_lower    REAL,
  ci_upper    REAL,
  cluster_p   REAL,
  mcnemar_p   REAL,
  details     TEXT NOT NULL,
  PRIMARY KEY (eval_run_id, predictor_a, predictor_b)
);

-- @section leaks (leak findings)
-- One row per (program, canonical goroutine) the leak rule judges; rewritten for a
-- program each time \`schedlab leaks\` analyses it. details is the finding as JSON
-- (verdict, why, owner, wakers, sites, early-detection curve); the columns are the fields
-- queries filter on. kind: leak and deadlock are "blocked forever" (docs/leaks.md).
CREATE TABLE IF NOT EXISTS leak_findings (
  program_id      INTEGER NOT NULL REFERENCES programs(id) ON DELETE CASCADE,
  goroutine       TEXT NOT NULL,
  reason          TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('leak', 'deadlock', 'outlived', 'background', 'inconclusive')),
  formal          INTEGER NOT NULL,
  creation_site   TEXT,
  blocking_site   TEXT,
  runs_seen       INTEGER NOT NULL,
  runs_blocked    INTEGER NOT NULL,
  p_unblock_upper REAL NOT NULL,
  details         TEXT NOT NULL,
  analysed_at     TEXT NOT NULL,
  PRIMARY KEY (program_id, goroutine)
) WITHOUT ROWID;

-- One row per data race a program's -race runs reported, by the two accesses' top user
-- frames ("function file.go:LINE", sorted); rewritten with leak_findings. runs: runs that
-- reported it; runs_checked: runs searched; details: the finding as JSON.
CREATE TABLE IF NOT EXISTS race_findings (
  program_id   INTEGER NOT NULL REFERENCES programs(id) ON DELETE CASCADE,
  first_frame  TEXT NOT NULL,
  second_frame TEXT NOT NULL,
  runs         INTEGER NOT NULL,
  runs_checked INTEGER NOT NULL,
  details      TEXT NOT NULL,
  analysed_at  TEXT NOT NULL,
  PRIMARY KEY (program_id, first_frame, second_frame)
) WITHOUT ROWID;

-- @section train (trained students)

-- @section rollout (multi-step rollouts)
-- One row per \`schedlab rollout\` invocation: the predictor, the options and the overall
-- metrics (docs/rollout.md); details is the full report as JSON. rollout_prefixes holds
-- the metrics of each prefix rolled out from.
CREATE TABLE IF NOT EXISTS rollout_runs (
  id                INTEGER PRIMARY KEY,
  predictor         TEXT NOT NULL,
  config_hash       TEXT NOT NULL,
  abstraction       TEXT NOT NULL,
  holdout           TEXT NOT NULL,
  steps             INTEGER NOT NULL,
  samples           INTEGER NOT NULL,
  temperature       REAL NOT NULL,
  constrained       INTEGER NOT NULL,
  seed              INTEGER NOT NULL,
  prefixes          INTEGER NOT NULL,
  mean_survival     REAL,
  reached_k         REAL,
  k_step_accuracy   REAL,
  per_step_accuracy REAL,
  l1                REAL,
  kl                REAL,
  details           TEXT NOT NULL,
  created_at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rollout_prefixes (
  rollout_run_id  INTEGER NOT NULL REFERENCES rollout_runs(id) ON DELETE CASCADE,
  state_id        TEXT NOT NULL,
  program         TEXT NOT NULL,
  key             TEXT NOT NULL,
  continuations   INTEGER NOT NULL,
  mean_survival   REAL,
  reached_k       REAL,
  k_step_accuracy REAL,
  PRIMARY KEY (rollout_run_id, state_id)
) WITHOUT ROWID;

-- @section run (pipeline stages of \`schedlab run\`)
-- One row per pipeline stage: the content hash of its inputs when it last completed and
-- what it produced (JSON: eval run id, adapter paths, …). A stage whose inputs hash the
-- same is skipped (docs/run.md).
CREATE TABLE IF NOT EXISTS pipeline_stages (
  stage        TEXT PRIMARY KEY,
  input_hash   TEXT NOT NULL,
  output       TEXT NOT NULL,
  elapsed_ms   INTEGER NOT NULL,
  completed_at TEXT NOT NULL
) WITHOUT ROWID;

-- @section fidelity (teacher/student fidelity)
-- One row per \`schedlab fidelity\` invocation (docs/fidelity.md): mode 'holdout' checks the
-- relations on held-out states, 'variants' on originals against their metamorphic
-- variants. mr1..mr4 are violation rates (NULL when the relation applies to nothing);
-- thresholds and details are JSON (details: the whole result, NaN as null).
CREATE TABLE IF NOT EXISTS fidelity_runs (
  id               INTEGER PRIMARY KEY,
  mode             TEXT NOT NULL CHECK (mode IN ('holdout', 'variants')),
  teacher          TEXT NOT NULL,
  student          TEXT NOT NULL,
  abstraction      TEXT NOT NULL,
  holdout          TEXT NOT NULL,
  thresholds       TEXT NOT NULL,
  mr1              REAL,
  mr2              REAL,
  mr3              REAL,
  mr4              REAL,
  teacher_accuracy REAL,
  student_accuracy REAL,
  details          TEXT NOT NULL,
  created_at       TEXT NOT NULL
);
`;
