import type { Validator } from '@rollup-router/core';
import type { RouteIssue } from './route-list-error.js';
import type { RouteEntry, RouteList } from './schemas.js';

/** A validated list, with where each entry came from (for naming duplicates). */
export interface CheckedList {
  readonly source: string;
  readonly entries: readonly RouteEntry[];
}

/** The entry index and member a failure's JSON Pointer names, e.g. `/3/countryCode`. */
function locate(pointer: string): { index?: number; field?: string } {
  const [index, field] = pointer.split('/').slice(1);
  if (index === undefined || index === '') return {};
  return field === undefined ? { index: Number(index) } : { index: Number(index), field };
}

/**
 * Every invalid entry of a list, one issue each. The validator stops at its first error,
 * and with the https-only schema on top that need not be the first bad entry, so once
 * the list is known to be a list its entries are checked one at a time.
 */
export function schemaIssues(source: string, list: unknown, validate: Validator<RouteList>): RouteIssue[] {
  if (validate(list)) return [];
  const failure = validate.failure();
  if (locate(failure.path).index === undefined)
    return [{ source, rule: failure.rule, message: failure.message }];
  return (list as unknown[]).flatMap((entry, index): RouteIssue[] => {
    if (validate([entry])) return [];
    const f = validate.failure();
    return [{ source, ...locate(f.path), index, rule: f.rule, message: f.message }];
  });
}

/** Identities must be unique across every source together; JSON Schema cannot say that across files. */
export function duplicateIssues(lists: readonly CheckedList[]): RouteIssue[] {
  const seen = new Map<string, { source: string; index: number }>();
  const issues: RouteIssue[] = [];
  for (const { source, entries } of lists) {
    entries.forEach((entry, index) => {
      const first = seen.get(entry.identity);
      if (!first) {
        seen.set(entry.identity, { source, index });
        return;
      }
      const where =
        first.source === source ? `entry ${first.index}` : `entry ${first.index} of ${first.source}`;
      issues.push({
        source,
        index,
        field: 'identity',
        rule: 'uniqueIdentity',
        message: `identity ${entry.identity} is already used by ${where}`,
      });
    });
  }
  return issues;
}
