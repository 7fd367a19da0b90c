// An OTLP/HTTP traces receiver on loopback that records the spans it is sent: what a collector
// would get. It decodes the protobuf body (ExportTraceServiceRequest) by its field numbers in
// opentelemetry-proto's trace.proto and common.proto; no package of the field decodes requests.
import { gunzipSync } from 'node:zlib';
import { listen, type Listening } from './http.js';
import { waitFor } from './wait-for.js';

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client (SpanKind in trace.proto). */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  /** The resource's attributes (service.name). */
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

export interface OtlpReceiver {
  /** The traces URL, as the `tracing.endpoint` option takes it. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The request paths and content types it was sent. */
  readonly requests: { readonly path: string; readonly contentType: string | undefined }[];
  /** Waits (bounded) until spans matching `match` have come, and returns them. */
  waitForSpans(what: string, match: (spans: readonly ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server: Listening = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      spans.push(...decodeExportRequest(body));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  return {
    url: `${server.url}/v1/traces`,
    spans,
    requests,
    waitForSpans: (what, match) =>
      waitFor(() => match(spans) && [...spans], what, { attempts: 300, stepMs: 50 }),
    close: () => server.close(),
  };
}

/** Fields of one protobuf message: field number to its values, as read off the wire. */
type Fields = Map<number, (bigint | Buffer)[]>;

function fieldsOf(buf: Buffer): Fields {
  const fields: Fields = new Map();
  let pos = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[pos++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    let value: bigint | Buffer;
    switch (tag & 7) {
      case 0:
        value = varint();
        break;
      case 1:
        value = buf.subarray(pos, pos + 8);
        pos += 8;
        break;
      case 2: {
        const length = Number(varint());
        value = buf.subarray(pos, pos + length);
        pos += length;
        break;
      }
      case 5:
        value = buf.subarray(pos, pos + 4);
        pos += 4;
        break;
      default:
        throw new Error(`wire type ${tag & 7} is not in OTLP`);
    }
    const list = fields.get(field);
    if (list) list.push(value);
    else fields.set(field, [value]);
  }
  return fields;
}

const messages = (f: Fields, n: number): Fields[] => ((f.get(n) ?? []) as Buffer[]).map(fieldsOf);
const message = (f: Fields, n: number): Fields | undefined => messages(f, n)[0];
const bytes = (f: Fields, n: number): Buffer => (f.get(n)?.[0] as Buffer | undefined) ?? Buffer.alloc(0);
const text = (f: Fields, n: number): string => bytes(f, n).toString('utf8');
const number = (f: Fields, n: number): number => Number((f.get(n)?.[0] as bigint | undefined) ?? 0n);
const hex = (f: Fields, n: number): string => bytes(f, n).toString('hex');

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue: values 1). */
function anyValue(v: Fields | undefined): AttributeValue {
  if (v === undefined) return undefined;
  if (v.has(1)) return text(v, 1);
  if (v.has(2)) return number(v, 2) === 1;
  if (v.has(3)) return Number(BigInt.asIntN(64, v.get(3)![0] as bigint));
  if (v.has(4)) return bytes(v, 4).readDoubleLE(0);
  if (v.has(5)) return messages(message(v, 5)!, 1).map(anyValue);
  return undefined;
}

/** KeyValue: key 1, value 2. */
function attributesOf(list: Fields[]): Record<string, AttributeValue> {
  return Object.fromEntries(list.map((kv) => [text(kv, 1), anyValue(message(kv, 2))]));
}

/**
 * ExportTraceServiceRequest: resource_spans 1. ResourceSpans: resource 1 (attributes 1),
 * scope_spans 2. ScopeSpans: spans 2. Span: trace_id 1, span_id 2, parent_span_id 4, name 5,
 * kind 6, attributes 9, links 13 (trace_id 1, span_id 2), status 15 (message 2, code 3).
 */
function decodeExportRequest(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of messages(fieldsOf(body), 1)) {
    const resource = attributesOf(messages(message(resourceSpans, 1) ?? new Map(), 1));
    for (const scopeSpans of messages(resourceSpans, 2)) {
      for (const span of messages(scopeSpans, 2)) {
        const status = message(span, 15) ?? new Map();
        out.push({
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: number(span, 6),
          attributes: attributesOf(messages(span, 9)),
          links: messages(span, 13).map((l) => ({ traceId: hex(l, 1), spanId: hex(l, 2) })),
          status: { code: number(status, 3), message: text(status, 2) },
          resource,
        });
      }
    }
  }
  return out;
}
