// The floor plan of src/ as data, and the import rules dependency-cruiser derives from it
// (`npm run deps`). Lowest floor first; a module may import its own floor or lower, never
// upward; across stages only through the other stage's index.ts; no cycles.
// Adding a stage: give its folder a floor here (an unlisted folder is itself a violation).

/** Folder under src/ → floor. Root files src/*.ts (errors, random, progress, version) are floor 0. */
const FLOORS = {
  core: 0, // shared vocabulary: event types, record kinds, formatting helpers
  metrics: 0, // pure metrics
  store: 1,
  gohelper: 1, // the TypeScript wrapper of the Go helper
  go: 1, // Go module and toolchain helpers
  model: 1, // the goroutine model and the leak rule
  trace: 2,
  corpus: 3, // owns program discovery
  collect: 3.5, // may import corpus, not the other way
  dataset: 4,
  predict: 5, // every predictor, student inference and the predictor registry
  train: 6,
  eval: 6,
  rollout: 7,
  fidelity: 7,
  leaks: 7,
  cv: 7, // cross-validation: trains and evaluates
  report: 8,
  run: 9,
  cli: 10,
};
const ROOT_FLOOR = 0;

/** Imports the floors would allow but the design does not: [from stages, to stages, why]. */
const FORBIDDEN_PAIRS = [
  [
    ["eval", "rollout", "fidelity"],
    ["train"],
    "students are loaded through predict's predictor registry; eval, rollout and fidelity do not depend on train",
  ],
  [
    ["rollout", "fidelity"],
    ["eval"],
    "rollout and fidelity need predictors (predict) and pure metrics (metrics), not the evaluation stage",
  ],
];

const folders = Object.keys(FLOORS);
const anyOf = (names) => `(${names.join("|")})`;
// src/index.ts is the package's public entry: above every floor, imported by nothing in src/.
const PACKAGE_ENTRY = "^src/index\\.ts$";
const ROOT_FILE = "^src/(?!index\\.ts$)[^/]+\\.ts$";

const upward = [...new Set(Object.values(FLOORS))]
  .sort((a, b) => a - b)
  .flatMap((floor) => {
    const here = folders.filter((f) => FLOORS[f] === floor);
    const above = folders.filter((f) => FLOORS[f] > floor);
    if (above.length === 0) return [];
    return [
      {
        name: "no-upward-import",
        comment: `floor ${floor} (${here.join(", ")}${floor === ROOT_FLOOR ? ", src/*.ts" : ""}) imports a higher floor`,
        severity: "error",
        from: { path: floor === ROOT_FLOOR ? [`^src/${anyOf(here)}/`, ROOT_FILE] : `^src/${anyOf(here)}/` },
        to: { path: `^src/${anyOf(above)}/` },
      },
    ];
  });

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "a cycle makes the floors meaningless: split the shared part into the lower module",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...upward,
    {
      name: "no-deep-import",
      comment: "another stage is imported through its index.ts only (root files src/*.ts are importable)",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: { path: "^src/[^/]+/", pathNot: ["^src/$1/", "^src/[^/]+/index\\.ts$"] },
    },
    {
      name: "no-deep-import",
      comment: "a root file (and the package entry src/index.ts) imports a stage through its index.ts only",
      severity: "error",
      from: { path: "^src/[^/]+\\.ts$" },
      to: { path: "^src/[^/]+/", pathNot: "^src/[^/]+/index\\.ts$" },
    },
    {
      name: "no-import-of-package-entry",
      comment: "src/index.ts is for users of the package; inside src/ import the stage itself",
      severity: "error",
      from: { path: "^src/" },
      to: { path: PACKAGE_ENTRY },
    },
    ...FORBIDDEN_PAIRS.map(([from, to, why]) => ({
      name: "no-forbidden-stage-import",
      comment: why,
      severity: "error",
      from: { path: `^src/${anyOf(from)}/` },
      to: { path: `^src/${anyOf(to)}/` },
    })),
    {
      name: "not-in-floor-plan",
      comment: "every folder under src/ has a floor in FLOORS (.dependency-cruiser.cjs)",
      severity: "error",
      from: { path: "^src/[^/]+/", pathNot: `^src/${anyOf(folders)}/` },
      to: {},
    },
    {
      name: "not-in-floor-plan",
      comment: "every folder under src/ has a floor in FLOORS (.dependency-cruiser.cjs)",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/[^/]+/", pathNot: `^src/${anyOf(folders)}/` },
    },
    {
      name: "not-to-unresolvable",
      comment: "an import that resolves to nothing on disk",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/gohelper/.*\\.go$" },
    // Type-only imports are arrows in the drawing too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
