// Metamorphic rewrites of one Go program (docs/fidelity.md): runs the helper's go/ast pass,
// rewrites the manifest's go-statement sites and creator names, and checks the variant builds.

import { execa } from "execa";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { devNull } from "node:os";
import { basename, join, resolve } from "node:path";
import { MANIFEST_FILE, type Manifest } from "../corpus/index.js";
import { goHelperPath } from "../gohelper/index.js";
import { MutationError } from "./errors.js";

/** The rewrites; "copy" is the control: identical sources, so its flips are schedule noise. */
export const MUTATION_KINDS = ["rename", "reorder", "deadcode", "copy"] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** Written beside each variant's sources: where it comes from and what changed. */
export const VARIANT_FILE = "variant.json";

/** What the helper reports for one rewrite (see src/gohelper/mutate/). */
interface HelperMutation {
  readonly kind: MutationKind;
  readonly seed: number;
  readonly files: readonly string[];
  /** Package-level functions and types renamed, old → new. */
  readonly renamed: Readonly<Record<string, string>>;
  readonly renamedLocals: number;
  /** Every go statement, "file.go:OLD" → "file.go:NEW". */
  readonly sites: Readonly<Record<string, string>>;
  readonly movedDecls: number;
  readonly deadBlocks: number;
}

export interface Variant extends HelperMutation {
  /** Directory of the original program. */
  readonly original: string;
  /** Directory the variant was written to: OUT/<original base name>__<kind>-s<seed>. */
  readonly dir: string;
  /** The name `schedlab collect OUT` gives it. */
  readonly name: string;
}

export interface MutationFailure {
  readonly kind: MutationKind;
  readonly message: string;
  readonly hint: string;
}

export interface MutateOptions {
  readonly kinds: readonly MutationKind[];
  readonly seed: number;
  /** Directory that receives one subdirectory per variant; given a go.mod if it has none. */
  readonly outDir: string;
}

/** The directory name of a variant; `originalOfVariant` inverts it. */
export function variantName(originalBase: string, kind: MutationKind, seed: number): string {
  return `${originalBase}__${kind}-s${seed}`;
}

const VARIANT_PATTERN = /^(?:.*\/)?([^/]+)__(rename|reorder|deadcode|copy)-s(\d+)(#test)?$/;

/** For a variant's program name, the original's base name (with "#test" kept), the kind and the seed. */
export function originalOfVariant(
  program: string,
): { readonly base: string; readonly kind: MutationKind; readonly seed: number } | undefined {
  const m = VARIANT_PATTERN.exec(program);
  if (m === null) return undefined;
  return { base: `${m[1]!}${m[4] ?? ""}`, kind: m[2] as MutationKind, seed: Number(m[3]) };
}

/** Rewrites creator names ("main.worker", "main.(*pool).run", "main.main.func1") through the rename table. */
export function renameCreator(creator: string, renamed: Readonly<Record<string, string>>): string {
  // the package path, up to the first "." after its last "/", is never renamed
  const cut = creator.indexOf(".", creator.lastIndexOf("/") + 1);
  return creator.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (word: string, offset: number) =>
    offset > cut && Object.hasOwn(renamed, word) ? renamed[word]! : word,
  );
}

/** The manifest of a variant: go-statement sites moved to their new lines, creators renamed. */
export function rewriteManifest(manifest: Manifest, mutation: Pick<HelperMutation, "renamed" | "sites">): Manifest {
  return {
    ...manifest,
    expected: manifest.expected.map((e) => {
      const site = e.site === null ? null : mutation.sites[e.site];
      if (site === undefined) {
        throw new MutationError(
          `the manifest names a go statement at ${e.site ?? ""} that the source does not have`,
          "Fix the site in schedlab.json (run `schedlab corpus check`) before mutating.",
        );
      }
      return { ...e, creator: renameCreator(e.creator, mutation.renamed), site };
    }),
  };
}

async function checkBuilds(dir: string): Promise<void> {
  const hasTests = readdirSync(dir).some((f) => f.endsWith("_test.go"));
  const args = hasTests ? ["test", "-c", "-o", devNull, "."] : ["build", "-o", devNull, "."];
  const result = await execa("go", args, { cwd: dir, reject: false, all: true });
  if (result.exitCode !== 0) {
    throw new MutationError(
      `the variant in ${dir} does not build:\n${result.all ?? ""}`,
      "This is a bug in the rewrite; report it with the program and the --kind/--seed, and use another seed meanwhile.",
    );
  }
}

function ensureModule(programDir: string, outDir: string): void {
  if (existsSync(join(outDir, "go.mod"))) return;
  const own = join(programDir, "go.mod");
  const goLine = existsSync(own) ? /^go\s+(\S+)/m.exec(readFileSync(own, "utf8"))?.[1] : undefined;
  writeFileSync(join(outDir, "go.mod"), `module schedlab.dev/variants\n\ngo ${goLine ?? "1.22"}\n`);
}

async function mutateOne(
  helper: string,
  programDir: string,
  kind: MutationKind,
  options: MutateOptions,
): Promise<Variant> {
  const name = variantName(basename(programDir), kind, options.seed);
  const dir = join(options.outDir, name);
  if (existsSync(dir)) {
    if (!existsSync(join(dir, VARIANT_FILE))) {
      throw new MutationError(
        `${dir} exists and is not a variant schedlab wrote`,
        "Pass another --out directory, or remove that directory.",
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const result = await execa(
    helper,
    ["mutate", "--kind", kind, "--seed", String(options.seed), "--out", dir, programDir],
    { reject: false },
  );
  if (result.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new MutationError(
      `${kind} rewrite of ${programDir} failed: ${result.stderr.trim()}`,
      "Check that the program builds on its own (`go vet` in its directory); renaming needs a package that type-checks.",
    );
  }
  const mutation = JSON.parse(result.stdout) as HelperMutation;
  try {
    const manifestPath = join(programDir, MANIFEST_FILE);
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
      writeFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(rewriteManifest(manifest, mutation), null, 2)}\n`);
    }
    for (const file of readdirSync(programDir)) {
      const from = join(programDir, file);
      if (file === "go.mod" || file === "go.sum") copyFileSync(from, join(dir, file));
    }
    const variant: Variant = { ...mutation, original: programDir, dir, name };
    writeFileSync(join(dir, VARIANT_FILE), `${JSON.stringify({ ...variant, dir: undefined }, null, 2)}\n`);
    await checkBuilds(dir);
    return variant;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Writes one variant of the program in `programDir` per kind under `options.outDir`.
 * Each variant is built (or its tests compiled) before it is kept; a kind that fails
 * is reported in `failures` and the others still run.
 */
export async function mutateProgram(
  programDir: string,
  options: MutateOptions,
): Promise<{ variants: Variant[]; failures: MutationFailure[] }> {
  const source = resolve(programDir);
  if (!existsSync(source) || !statSync(source).isDirectory() || !readdirSync(source).some((f) => f.endsWith(".go"))) {
    throw new MutationError(
      `${programDir} is not a directory with .go files`,
      "Pass one program directory (a main package or a package with tests).",
    );
  }
  const outDir = resolve(options.outDir);
  if (outDir === source || outDir.startsWith(`${source}/`)) {
    throw new MutationError(
      `--out ${options.outDir} is inside the program directory`,
      "Write variants to a directory outside the program, e.g. --out variants/.",
    );
  }
  mkdirSync(outDir, { recursive: true });
  ensureModule(source, outDir);
  const helper = await goHelperPath();
  const variants: Variant[] = [];
  const failures: MutationFailure[] = [];
  for (const kind of options.kinds) {
    try {
      variants.push(await mutateOne(helper, source, kind, { ...options, outDir }));
    } catch (error) {
      if (!(error instanceof MutationError)) throw error;
      failures.push({ kind, message: error.message, hint: error.hint });
    }
  }
  return { variants, failures };
}
