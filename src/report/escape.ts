// Escaping text for HTML/SVG and Markdown. Every string that reaches a report goes through here.

/** Escapes &, <, >, " and ' for use in HTML or SVG text and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Escapes a Markdown table cell: pipes, backslashes and newlines. */
export function escapeMarkdownCell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}
