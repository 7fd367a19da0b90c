import type { AnyMethodDefinition } from './method.js';
import type { Plugin } from './plugin.js';

/**
 * Orders plugins so each starts after the plugins it depends on, and refuses a build
 * with a missing dependency, a cycle, a repeated plugin name or two methods of one name.
 */
export function resolvePlugins(
  plugins: readonly Plugin[],
  extraMethods: readonly AnyMethodDefinition[],
): { ordered: Plugin[]; methods: AnyMethodDefinition[] } {
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
    if (previous !== undefined) {
      throw new Error(`method "${m.name}" is defined by both ${previous} and ${from}`);
    }
    owner.set(m.name, from);
    methods.push(m);
  };
  for (const p of ordered) for (const m of p.methods ?? []) add(m, `plugin "${p.name}"`);
  for (const m of extraMethods) add(m, 'the custom methods');
  return { ordered, methods };
}
