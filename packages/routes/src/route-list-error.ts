/** One thing wrong with a route list, precise enough for an operator to fix it. */
export interface RouteIssue {
  /** Where the list came from: the file's path, `inline routes`, or a source's name. */
  readonly source: string;
  /** The entry's position in its list (0-based); absent when the list as a whole is wrong. */
  readonly index?: number;
  /** The member of the entry, e.g. `countryCode`; absent when the entry or list as a whole is wrong. */
  readonly field?: string;
  /** The schema keyword that failed (`enum`, `pattern`, `base58Bytes`...), or `uniqueIdentity`, `syntax`, `read`, `load`. */
  readonly rule: string;
  readonly message: string;
}

export function formatIssue(issue: RouteIssue): string {
  const where = [
    issue.source,
    issue.index === undefined ? undefined : `entry ${issue.index}`,
    issue.field === undefined ? undefined : `field ${issue.field}`,
  ].filter((part) => part !== undefined);
  return `${where.join(', ')}: ${issue.message} (${issue.rule})`;
}

/** A route list that was refused; `issues` says every reason, the message repeats them for logs. */
export class RouteListError extends Error {
  readonly issues: readonly RouteIssue[];

  constructor(issues: readonly RouteIssue[]) {
    super(issues.map(formatIssue).join('; '));
    this.name = 'RouteListError';
    this.issues = issues;
  }
}
