import { compileSchema, type Schema, type Validator } from '@rollup-router/core';
import {
  routeEntrySchema,
  routeListHttpsSchema,
  routeListSchema,
  routeListSecureSchema,
  type RouteEntry,
  type RouteList,
} from './generated/schemas.js';
import type { RouteIssue } from './route-list-error.js';

/** A validated list, with where each entry came from (for naming duplicates). */
export interface CheckedList {
  readonly source: string;
  readonly entries: readonly RouteEntry[];
}

/** An issue of one entry, before it is placed in a list. */
export type EntryIssue = Pick<RouteIssue, 'field' | 'rule' | 'message'>;

type SchemaObject = Exclude<Schema, boolean>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * An object schema cut into one schema for its shape (type, unknown members) and one per
 * member, so that a stop-at-first-error validator still finds every member's issue.
 */
function perMember(schema: SchemaObject): SchemaObject[] {
  const {
    properties,
    required,
    $schema: _root,
    ...shape
  } = schema as {
    properties?: Record<string, Schema>;
    required?: string[];
    $schema?: string;
  } & SchemaObject;
  const members = Object.entries(properties ?? {});
  const parts: SchemaObject[] = [
    { ...shape, properties: Object.fromEntries(members.map(([name]) => [name, true])) },
  ];
  for (const [name, member] of members) {
    parts.push({
      type: 'object',
      properties: { [name]: member },
      required: required?.includes(name) ? [name] : [],
    });
  }
  return parts;
}

const HTTPS_ONLY = 'must be an https:// URL: http:// nodes are listed only with allowInsecure';

/**
 * What makes a route list good: its schema (https:// only unless `allowInsecure`), and
 * the issues of each entry, every one of them, named by entry, member and rule.
 */
export class RouteListCheck {
  /** The schema a route list is checked against, and the one getRoutes publishes as its result. */
  readonly schema: Schema;
  private readonly list: Validator<RouteList>;
  /** The entry schema's parts; `httpsOnly` marks the ones that exist because allowInsecure is off. */
  private readonly entryParts: readonly { readonly validate: Validator; readonly httpsOnly: boolean }[];

  constructor(allowInsecure: boolean) {
    this.schema = allowInsecure ? routeListSchema : routeListSecureSchema;
    this.list = compileSchema<RouteList>(this.schema);
    const httpsEntry = (routeListHttpsSchema as { items: SchemaObject }).items;
    const part = (httpsOnly: boolean) => (s: SchemaObject) => ({ validate: compileSchema(s), httpsOnly });
    this.entryParts = [
      ...perMember(routeEntrySchema as SchemaObject).map(part(false)),
      ...(allowInsecure ? [] : perMember(httpsEntry).map(part(true))),
    ];
  }

  /** Every issue of one entry, at most one per member; none when the entry is good. */
  entryIssues(entry: unknown): EntryIssue[] {
    const issues: EntryIssue[] = [];
    const seen = new Set<string>();
    for (const { validate, httpsOnly } of this.entryParts) {
      if (validate(entry)) continue;
      const f = validate.failure();
      // The schema's own words ("must match pattern") do not say which setting lists the node.
      const message = httpsOnly ? `${HTTPS_ONLY} (${f.message})` : f.message;
      const field = f.path.split('/')[1] || undefined;
      const key = field ?? '';
      if (seen.has(key)) continue;
      seen.add(key);
      issues.push(field === undefined ? { rule: f.rule, message } : { field, rule: f.rule, message });
      // An entry that is not an object has no members to look at.
      if (!isObject(entry)) break;
    }
    return issues;
  }

  /** Every issue of a list: the list as a whole, or each entry's. */
  issues(source: string, list: unknown): RouteIssue[] {
    if (this.list(list)) return [];
    const whole = (): RouteIssue[] => {
      const f = this.list.failure();
      return [{ source, rule: f.rule, message: f.message }];
    };
    if (!Array.isArray(list)) return whole();
    const issues = list.flatMap((entry, index) =>
      this.entryIssues(entry).map((issue): RouteIssue => ({ source, index, ...issue })),
    );
    return issues.length > 0 ? issues : whole();
  }
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
