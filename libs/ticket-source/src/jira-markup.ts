/**
 * Jira wiki markup turns `!url!` into an image the viewer's browser fetches, `[text|url]` into a
 * link, `[~user]` into a mention and `{html}`/`{color}` into macros. Text written back holds the
 * customer's own words (the ticket title, quoted statements), so those characters are escaped
 * with Jira's backslash: they show as typed and do nothing.
 */
const JIRA_ACTIVE = /[[\]{}!|\\]/g;

export function escapeJiraMarkup(text: string): string {
  return text.replace(JIRA_ACTIVE, (c) => `\\${c}`);
}
