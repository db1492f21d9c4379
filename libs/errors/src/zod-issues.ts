/**
 * The one way a validation failure is told: each issue as the dotted path of the field it is
 * about (`root` names the whole value) and zod's message. Works on any zod error's `issues`.
 */

/** What this formatter reads of a zod issue. */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export interface FieldIssue {
  field: string;
  message: string;
}

/** The dotted path of an issue, or `root` for the value as a whole. */
export function issueField(issue: Pick<IssueLike, 'path'>, root = '(root)'): string {
  return issue.path.map(String).join('.') || root;
}

/** Each issue as its field and message. */
export function fieldIssues(issues: readonly IssueLike[], root = '(root)'): FieldIssue[] {
  return issues.map((i) => ({ field: issueField(i, root), message: i.message }));
}

/** `field: message; field: message`. */
export function issuesText(issues: readonly IssueLike[], root = '(root)'): string {
  return fieldIssues(issues, root)
    .map((i) => `${i.field}: ${i.message}`)
    .join('; ');
}
