// The soak's hook for WebSocket subscriptions (issue 12: "1M mixed calls, including
// WebSocket subscriptions where they exist"). The server has no WebSocket endpoint yet,
// so this opens nothing and says so. When subscriptions exist: open them here against
// `target` (e.g. signatureSubscribe over `ws`), keep them churning while the HTTP load
// runs, and have stop() close them and return what they saw; the RSS checkpoints of the
// soak then cover them with no other change.

/** Starts subscription load next to the HTTP load; resolves with `{ active, reason, stop() }`. */
export async function startSubscriptions(_target, _log) {
  return {
    active: false,
    reason: 'no WebSocket subscriptions in the server yet',
    stop: async () => ({ opened: 0, notifications: 0 }),
  };
}
