import { checkMethod, checkPlugin } from './check-definitions.js';
import { ErrorCode, ErrorInfo } from './codes.js';
import type { AnyMethodDefinition } from './method.js';
import type { DeclaredError, Plugin } from './plugin.js';
import { subscriptionMethods } from './subscriptions/methods.js';

const CORE = 'the core';

/** A declared error code with who declared it, as rpc.discover publishes it. */
export interface OwnedError extends DeclaredError {
  /** `core` or the plugin's name. */
  readonly owner: string;
}

/**
 * Orders plugins so each starts after the plugins it depends on, and refuses a build
 * with a broken definition (check-definitions.ts), a missing dependency, a cycle, a repeated plugin name, two methods of one name or
 * two declarations of one error code.
 */
export function resolvePlugins(
  plugins: readonly Plugin[],
  extraMethods: readonly AnyMethodDefinition[],
  coreMethods: readonly AnyMethodDefinition[] = [],
): { ordered: Plugin[]; methods: AnyMethodDefinition[]; errors: OwnedError[] } {
  plugins.forEach((p, i) => checkPlugin(p, `the plugin at plugins[${i}]`));
  extraMethods.forEach((m, i) => checkMethod(m, 'the custom methods', i));
  const byName = new Map<string, Plugin>();
  for (const p of plugins) {
    if (byName.has(p.name)) throw new Error(`plugin "${p.name}" is registered twice`);
    byName.set(p.name, p);
  }
  const ordered: Plugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: Plugin, chain: string[]): void => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') throw new Error(`plugin dependency cycle: ${[...chain, p.name].join(' -> ')}`);
    state.set(p.name, 'visiting');
    for (const dep of p.dependencies ?? []) {
      const d = byName.get(dep);
      if (!d) throw new Error(`plugin "${p.name}" depends on "${dep}", which is not registered`);
      visit(d, [...chain, p.name]);
    }
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);

  const owner = new Map<string, string>();
  const methods: AnyMethodDefinition[] = [];
  const add = (m: AnyMethodDefinition, from: string): void => {
    const previous = owner.get(m.name);
    if (previous !== undefined && from === CORE) {
      throw new Error(
        `method "${m.name}" of ${previous} is one the core serves itself; ` +
          'choose another name, or set the core option discovery: false to serve your own',
      );
    }
    if (previous !== undefined) {
      throw new Error(`method "${m.name}" is defined by both ${previous} and ${from}`);
    }
    owner.set(m.name, from);
    methods.push(m);
  };
  for (const p of ordered) {
    const own = [...(p.methods ?? []), ...(p.subscriptions ?? []).flatMap(subscriptionMethods)];
    for (const m of own) add(m, `plugin "${p.name}"`);
  }
  for (const m of extraMethods) add(m, 'the custom methods');
  for (const m of coreMethods) add(m, CORE);
  return { ordered, methods, errors: resolveErrors(ordered) };
}

/** The core's codes and every plugin's, refusing a code declared twice. */
function resolveErrors(plugins: readonly Plugin[]): OwnedError[] {
  const errors: OwnedError[] = Object.values(ErrorCode).map((code) => ({
    code,
    message: ErrorInfo[code].message,
    meaning: ErrorInfo[code].meaning,
    owner: 'core',
  }));
  const byCode = new Map(errors.map((e) => [e.code, e.owner]));
  for (const p of plugins) {
    for (const e of p.errors ?? []) {
      if (!Number.isInteger(e.code))
        throw new Error(`plugin "${p.name}" declares error code ${e.code}, not an integer`);
      const previous = byCode.get(e.code);
      if (previous !== undefined) {
        const who = previous === 'core' ? 'the core' : `plugin "${previous}"`;
        throw new Error(`error code ${e.code} is declared by both ${who} and plugin "${p.name}"`);
      }
      byCode.set(e.code, p.name);
      errors.push({ code: e.code, message: e.message, meaning: e.meaning, owner: p.name });
    }
  }
  return errors;
}
