import { closestName } from './closest-name.js';
import type { AnyMethodDefinition } from './method.js';
import type { Plugin } from './plugin.js';
import type { AnySubscriptionDefinition } from './subscriptions/definition.js';

/**
 * The keys of each definition. `satisfies` keeps the lists in step with the interfaces:
 * a key added to one and not here is a compile error.
 */
const PLUGIN_KEYS = Object.keys({
  name: true,
  dependencies: true,
  methods: true,
  subscriptions: true,
  errors: true,
  wireErrors: true,
  start: true,
  stop: true,
  guard: true,
  allowHeaders: true,
} satisfies Record<keyof Plugin, true>);

const METHOD_KEYS = Object.keys({
  name: true,
  summary: true,
  description: true,
  params: true,
  result: true,
  paramsError: true,
  errorNullOnPathStyle: true,
  guard: true,
  handler: true,
} satisfies Record<keyof AnyMethodDefinition, true>);

const SUBSCRIPTION_KEYS = Object.keys({
  subscribe: true,
  unsubscribe: true,
  notification: true,
  summary: true,
  description: true,
  params: true,
  result: true,
  paramsError: true,
  start: true,
  admit: true,
  unknownIdMessage: true,
} satisfies Record<keyof AnySubscriptionDefinition, true>);

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);
const isName = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * Refuses a plugin definition that could only fail at a call (a method with no handler
 * answers every call -32603) or that holds a misspelled key (`nmae`, `handeler`),
 * naming the plugin, the method and the key. Plugins are often plain JavaScript objects
 * that no compiler checked. `at` names the plugin when it has no name (`plugins[2]`).
 */
export function checkPlugin(plugin: unknown, at: string): asserts plugin is Plugin {
  if (!isObject(plugin)) throw new Error(`${at}: not a plugin (an object with a name)`);
  const where = isName(plugin.name) ? `plugin "${plugin.name}"` : at;
  // A plugin may carry an API of its own (host.statuses.track): only a near miss of a key it lacks is a typo.
  misspelledKey(plugin, PLUGIN_KEYS, where);
  if (!isName(plugin.name)) throw new Error(`${where}: name must be a non-empty string`);
  for (const key of ['start', 'stop', 'guard'] as const) mustBeFunction(plugin, key, where, false);
  const dependencies = arrayOf(plugin, 'dependencies', where);
  if (dependencies.some((d) => !isName(d)))
    throw new Error(`${where}: dependencies must be plugin names (non-empty strings)`);
  arrayOf(plugin, 'errors', where);
  const { wireErrors } = plugin;
  if (
    wireErrors !== undefined &&
    !(isObject(wireErrors) && isName(wireErrors.name) && typeof wireErrors.toWire === 'function')
  )
    throw new Error(`${where}: wireErrors must be a wire error policy (a name and a toWire function)`);
  if (arrayOf(plugin, 'allowHeaders', where).some((h) => !isName(h)))
    throw new Error(`${where}: allowHeaders must be header names (non-empty strings)`);
  arrayOf(plugin, 'methods', where).forEach((m, i) => checkMethod(m, where, i));
  arrayOf(plugin, 'subscriptions', where).forEach((s, i) => checkSubscription(s, where, i));
}

/** Refuses a method definition (`owner`'s `index`th) with a key no method has, no name or no handler. */
export function checkMethod(
  method: unknown,
  owner: string,
  index: number,
): asserts method is AnyMethodDefinition {
  const at = `${owner}, methods[${index}]`;
  if (!isObject(method)) throw new Error(`${at}: not a method (an object with a name and a handler)`);
  const where = isName(method.name) ? `${owner}, method "${method.name}"` : at;
  unknownKey(method, METHOD_KEYS, where, 'a method');
  if (!isName(method.name)) throw new Error(`${where}: name must be a non-empty string`);
  if (method.handler === undefined) throw new Error(`${where}: no handler: handler must be a function`);
  mustBeFunction(method, 'handler', where, true);
  mustBeFunction(method, 'paramsError', where, false);
  mustBeFunction(method, 'guard', where, false);
}

function checkSubscription(subscription: unknown, owner: string, index: number): void {
  const at = `${owner}, subscriptions[${index}]`;
  if (!isObject(subscription)) throw new Error(`${at}: not a subscription definition (an object)`);
  const where = isName(subscription.subscribe) ? `${owner}, subscription "${subscription.subscribe}"` : at;
  unknownKey(subscription, SUBSCRIPTION_KEYS, where, 'a subscription');
  for (const key of ['subscribe', 'unsubscribe', 'notification'])
    if (!isName(subscription[key]))
      throw new Error(`${where}: ${key} must be a method name (a non-empty string)`);
  mustBeFunction(subscription, 'start', where, true);
  mustBeFunction(subscription, 'admit', where, false);
  mustBeFunction(subscription, 'paramsError', where, false);
}

/** Any key the definition does not have is refused, with the nearest one when it looks misspelled. */
function unknownKey(fields: Fields, known: readonly string[], where: string, what: string): void {
  for (const key of Object.keys(fields)) {
    if (known.includes(key)) continue;
    const near = closestName(key, known);
    throw new Error(
      near === undefined
        ? `${where}: unknown key "${key}"; ${what} has ${known.join(', ')}`
        : `${where}: unknown key "${key}": did you mean "${near}"?`,
    );
  }
}

/** A key one or two edits from a known key the object lacks is a misspelling of it. */
function misspelledKey(fields: Fields, known: readonly string[], where: string): void {
  const missing = known.filter((k) => !(k in fields));
  for (const key of Object.keys(fields)) {
    if (known.includes(key)) continue;
    const near = closestName(key, missing);
    if (near !== undefined) throw new Error(`${where}: unknown key "${key}": did you mean "${near}"?`);
  }
}

function mustBeFunction(fields: Fields, key: string, where: string, required: boolean): void {
  const value = fields[key];
  if ((required || value !== undefined) && typeof value !== 'function')
    throw new Error(`${where}: ${key} must be a function`);
}

function arrayOf(fields: Fields, key: string, where: string): readonly unknown[] {
  const value = fields[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: ${key} must be an array`);
  return value;
}
