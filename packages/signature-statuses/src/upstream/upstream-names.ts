import { redactUrl } from '@rollup-router/core';

/** A configured upstream as the options list it. */
interface NamedUpstream {
  readonly url: string;
  readonly name?: string;
}

/**
 * The name of each configured upstream, in the order listed: its `name`, else its URL as
 * redactUrl shows it (no path, query or credentials: where API keys live). One provider
 * with two keys in the path gives two upstreams one redacted URL, so the second is
 * suffixed ` #2`, the third ` #3`, in the order listed: the first keeps the name it had
 * alone, and no label or readiness entry is shared. A given `name` never collides with a
 * default one (its pattern has no `:`, `/` or space); two equal given names are refused.
 */
export function upstreamNames(upstreams: readonly NamedUpstream[]): string[] {
  const defaults = new Map<string, number>();
  const names = upstreams.map(({ url, name }) => {
    if (name !== undefined) return name;
    const redacted = redactUrl(url);
    const count = (defaults.get(redacted) ?? 0) + 1;
    defaults.set(redacted, count);
    return count === 1 ? redacted : `${redacted} #${count}`;
  });
  const firstAt = new Map<string, number>();
  names.forEach((name, i) => {
    const first = firstAt.get(name);
    if (first !== undefined)
      throw new TypeError(
        `signature-statuses options: /upstreams/${i}/name "${name}" is also the name of /upstreams/${first}; names must be unique`,
      );
    firstAt.set(name, i);
  });
  return names;
}
