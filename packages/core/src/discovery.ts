import type { AnyMethodDefinition, Schema } from './method.js';
import type { OwnedError } from './plugin-graph.js';
import type { AnySubscriptionDefinition } from './subscriptions/definition.js';

/** An OpenRPC 1.x document, as rpc.discover returns it. */
export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string };
  methods: OpenRpcMethod[];
  /** Every error code the service answers with: JSON-RPC's, the core's and each plugin's. */
  'x-errors': OwnedError[];
  /** Subscriptions (WebSocket only): their subscribe and unsubscribe methods are in `methods`. */
  'x-subscriptions': OpenRpcSubscription[];
}

/** A subscription as rpc.discover lists it. */
export interface OpenRpcSubscription {
  subscribe: string;
  unsubscribe: string;
  /** The method name of its notifications. */
  notification: string;
  /** Schema of a notification's `params.result`. */
  result: Schema;
}

export interface OpenRpcContentDescriptor {
  name: string;
  required?: boolean;
  schema: Schema;
}

export interface OpenRpcMethod {
  name: string;
  summary?: string;
  description?: string;
  paramStructure: 'by-position' | 'by-name' | 'either';
  params: OpenRpcContentDescriptor[];
  result: OpenRpcContentDescriptor;
  /** The codes its plugin declared (JSON-RPC's and the core's apply to every method). */
  errors?: { code: number; message: string }[];
}

type SchemaObject = Readonly<Record<string, unknown>>;
const asObject = (s: Schema | undefined): SchemaObject | undefined =>
  typeof s === 'object' && s !== null ? s : undefined;

const camel = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))
    .replace(/^./, (c) => c.toLowerCase());

/**
 * OpenRPC describes params one by one, where our schemas describe the whole `params`
 * member: positional params come from `prefixItems`, named ones from `properties`.
 */
function describeParams(method: AnyMethodDefinition): Pick<OpenRpcMethod, 'params' | 'paramStructure'> {
  const schema = asObject(method.params);
  const items = schema?.prefixItems as readonly Schema[] | undefined;
  if (Array.isArray(items)) {
    const required = typeof schema?.minItems === 'number' ? schema.minItems : 0;
    return {
      paramStructure: 'by-position',
      params: items.map((item: Schema, i: number) => ({
        name: camel(String(asObject(item)?.title ?? `param ${i}`)),
        required: i < required,
        schema: item,
      })),
    };
  }
  const properties = schema?.properties as Readonly<Record<string, Schema>> | undefined;
  if (schema?.type === 'object' && properties) {
    const required = new Set((schema.required as readonly string[] | undefined) ?? []);
    return {
      paramStructure: 'by-name',
      params: Object.entries(properties).map(([name, s]) => ({
        name,
        required: required.has(name),
        schema: s,
      })),
    };
  }
  return { paramStructure: 'by-position', params: [] };
}

export function buildOpenRpcDocument(
  info: { title: string; version: string },
  methods: Iterable<AnyMethodDefinition>,
  errors: readonly OwnedError[],
  errorsOf: (method: AnyMethodDefinition) => readonly { code: number; message: string }[],
  subscriptions: readonly AnySubscriptionDefinition[] = [],
): OpenRpcDocument {
  const out: OpenRpcMethod[] = [];
  for (const m of methods) {
    const own = errorsOf(m).map(({ code, message }) => ({ code, message }));
    out.push({
      name: m.name,
      ...(m.summary === undefined ? {} : { summary: m.summary }),
      ...(m.description === undefined ? {} : { description: m.description }),
      ...describeParams(m),
      result: { name: `${m.name}Result`, schema: m.result ?? true },
      ...(own.length === 0 ? {} : { errors: own }),
    });
  }
  const subs = subscriptions.map((d) => ({
    subscribe: d.subscribe,
    unsubscribe: d.unsubscribe,
    notification: d.notification,
    result: d.result ?? true,
  }));
  return { openrpc: '1.2.6', info, methods: out, 'x-errors': [...errors], 'x-subscriptions': subs };
}
