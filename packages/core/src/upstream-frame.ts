import * as jsonc from 'jsonc-parser';

/** A notification's `params.result` as an upstream sent it. */
export class UpstreamResult {
  private parsed: { value: unknown } | undefined;

  constructor(
    /** The result's own text, byte for byte as the upstream wrote it (u64 fields intact). */
    readonly json: string,
  ) {}

  /**
   * The result parsed, for reading its shape (slots, owners): numbers past 2^53 in it are
   * not exact, so what goes to clients is `json`, never this re-serialized. Undefined
   * when JSON.parse refuses what the tree read took.
   */
  get value(): unknown {
    return (this.parsed ??= { value: parsed(this.json) }).value;
  }
}

/** One message from an upstream's pubsub socket: an answer (`id`) or a notification (`method`). */
export type UpstreamFrame =
  | { readonly kind: 'answer'; readonly id: number; readonly result: unknown; readonly error: unknown }
  | {
      readonly kind: 'notification';
      readonly method: string;
      readonly subscription: unknown;
      readonly result: UpstreamResult | undefined;
    };

const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

/**
 * Reads one upstream message without turning its result into JavaScript values: the
 * result's text is located (jsonc-parser's tree gives each value's offset and length) and
 * kept as sent. Undefined for anything that is not one JSON-RPC object.
 */
export function readUpstreamFrame(text: string): UpstreamFrame | undefined {
  const errors: jsonc.ParseError[] = [];
  const root = jsonc.parseTree(text, errors, STRICT);
  if (root === undefined || root.type !== 'object' || errors.length > 0) return undefined;
  const member = (path: jsonc.JSONPath): jsonc.Node | undefined => jsonc.findNodeAtLocation(root, path);
  const id = member(['id']);
  if (id?.type === 'number') {
    const value = (path: string): unknown => {
      const node = member([path]);
      return node === undefined ? undefined : (jsonc.getNodeValue(node) as unknown);
    };
    return { kind: 'answer', id: id.value as number, result: value('result'), error: value('error') };
  }
  const method = member(['method']);
  if (method?.type !== 'string') return undefined;
  const subscription = member(['params', 'subscription']);
  const result = member(['params', 'result']);
  return {
    kind: 'notification',
    method: method.value as string,
    subscription: subscription === undefined ? undefined : (jsonc.getNodeValue(subscription) as unknown),
    result:
      result === undefined
        ? undefined
        : new UpstreamResult(text.slice(result.offset, result.offset + result.length)),
  };
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}
