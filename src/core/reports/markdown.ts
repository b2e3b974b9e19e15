// Text inside Markdown tables, for the reports people read on a pull request or a CI run's page
// (compare's report, GitHub's step summary). Plain text only, no Node: the webviews import it too.

/** Text for a Markdown table cell: pipes escaped, line breaks (a lone \r too: it ends a row) as <br>, HTML made inert. */
export function markdownCell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/\r\n?|\n/g, '<br>');
}
