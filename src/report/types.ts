// The report contract: a report is a list of sections, each rendering itself as an HTML
// fragment, Markdown and JSON. New sections (leaks, rollout survival, fidelity) are new
// modules returning a ReportSection; writeReport needs no change.

export interface ReportSection {
  /** Stable identifier: the HTML anchor and the key in metrics.json. Lowercase, [a-z0-9-]. */
  readonly id: string;
  /** Heading shown in the table of contents and above the section. */
  readonly title: string;
  /** HTML fragment (no <h2>: the page adds the heading). Text must already be escaped. */
  html(): string;
  /** Markdown body (no "##" heading: the document adds it). */
  markdown(): string;
  /** Machine-readable data of the section, for metrics.json. */
  json(): unknown;
}

export interface ReportMeta {
  readonly title: string;
  /** ISO time the report was generated. */
  readonly generatedAt: string;
  /** One line on the data source, e.g. the database path and eval run id. */
  readonly source: string;
}
