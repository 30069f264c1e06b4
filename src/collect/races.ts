// Data-race reports in a run's stderr: the race detector prints each between two lines
// of "=" after a "WARNING: DATA RACE" line. Pure.

/** The line of "=" the race detector prints before and after each report. */
export const RACE_SEPARATOR = /^={10,}$/;

/**
 * The race reports in `stderr`, each from its "WARNING: DATA RACE" line to the line
 * before the closing separator. A report cut off by the end of the text is kept as it is.
 */
export function raceReports(stderr: string): string[] {
  if (!stderr.includes("WARNING: DATA RACE")) return [];
  const reports: string[] = [];
  let current: string[] | null = null;
  for (const line of stderr.split("\n")) {
    if (line.startsWith("WARNING: DATA RACE")) {
      if (current !== null) reports.push(current.join("\n"));
      current = [line];
    } else if (current !== null) {
      if (RACE_SEPARATOR.test(line)) {
        reports.push(current.join("\n"));
        current = null;
      } else current.push(line);
    }
  }
  if (current !== null) reports.push(current.join("\n"));
  return reports;
}
