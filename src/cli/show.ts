// `schedlab show FINGERPRINT`: one bug of the leak analysis on a page of its own — the view
// the report gives it, with its wait-for graph and timeline — or one of its pictures as SVG.

import type { Command } from "commander";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseChoice } from "./options.js";
import { UsageError } from "../errors.js";
import { openExistingDatabase } from "../store/index.js";
import { bugPageHtml, bugPageJson, bugPictureSvg, findBug } from "../report/index.js";

const PICTURES = ["graph", "timeline"] as const;

interface ShowFlags {
  readonly db: string;
  readonly out?: string;
  readonly svg?: string;
  readonly json?: boolean;
}

export function registerShow(program: Command): void {
  program
    .command("show")
    .description(
      "Show one bug (or potential deadlock) by its fingerprint, as the report shows it: why, the evidence, its " +
        "wait-for graph and timeline, the stacks, and the commands to replay it and open its trace; an HTML page, " +
        "or one picture as SVG.",
    )
    .argument(
      "<fingerprint>",
      "the bug's fingerprint, or a unique prefix of it (schedlab leaks prints them in brackets)",
    )
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--out <file>", "write to this file instead of stdout")
    .option("--svg <picture>", `write one picture as SVG instead of the page: ${PICTURES.join(" or ")}`)
    .option("--json", "print the bug as the report's metrics.json lists it")
    .action(async (fingerprint: string, flags: ShowFlags) => {
      const picture = flags.svg === undefined ? null : parseChoice("--svg", flags.svg, PICTURES);
      if (picture !== null && flags.json === true)
        throw new UsageError("--svg and --json go alone", "Pass one of them.");
      const db = openExistingDatabase(flags.db);
      try {
        const bug = await findBug(db, fingerprint);
        const text =
          flags.json === true
            ? `${JSON.stringify(bugPageJson(bug))}\n`
            : picture !== null
              ? bugPictureSvg(bug, picture)
              : bugPageHtml(bug, { generatedAt: new Date().toISOString(), source: resolve(flags.db) });
        if (flags.out === undefined) process.stdout.write(text);
        else {
          writeFileSync(flags.out, text);
          process.stderr.write(`wrote ${resolve(flags.out)}\n`);
        }
      } finally {
        db.close();
      }
    });
}
