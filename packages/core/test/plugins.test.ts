import { expect } from 'chai';
import { createLogger, createRpc, defineMethod, definePlugin, type Plugin } from '@rollup-router/core';

const silent = createLogger({ level: 'silent' });
const method = (name: string) => defineMethod<unknown, string>({ name, handler: () => name });

describe('plugins', () => {
  it('two methods of one name are an error when the service is built, naming both owners', () => {
    const a = definePlugin({ name: 'a', methods: [method('getThing')] });
    const b = definePlugin({ name: 'b', methods: [method('getThing')] });
    expect(() => createRpc({ logger: silent, plugins: [a, b] })).to.throw(
      'method "getThing" is defined by both plugin "a" and plugin "b"',
    );
  });

  it('a custom method may not take a plugin method name', () => {
    const a = definePlugin({ name: 'a', methods: [method('getThing')] });
    expect(() => createRpc({ logger: silent, plugins: [a], methods: [method('getThing')] })).to.throw(
      /defined by both/,
    );
  });

  it('nobody may take rpc.discover while discovery is on', () => {
    expect(() => createRpc({ logger: silent, methods: [method('rpc.discover')] })).to.throw(
      'method "rpc.discover" of the custom methods is one the core serves itself; choose another name, or set the core option discovery: false to serve your own',
    );
    expect(
      createRpc({ logger: silent, discovery: false, methods: [method('rpc.discover')] }).methodNames,
    ).to.deep.equal(['rpc.discover']);
  });

  it('a missing dependency is an error when the service is built', () => {
    const b = definePlugin({ name: 'b', dependencies: ['a'] });
    expect(() => createRpc({ logger: silent, plugins: [b] })).to.throw(
      'plugin "b" depends on "a", which is not registered',
    );
  });

  it('a dependency cycle and a repeated plugin are errors', () => {
    const a: Plugin = { name: 'a', dependencies: ['b'] };
    const b: Plugin = { name: 'b', dependencies: ['a'] };
    expect(() => createRpc({ logger: silent, plugins: [a, b] })).to.throw(/cycle: a -> b -> a/);
    expect(() => createRpc({ logger: silent, plugins: [{ name: 'a' }, { name: 'a' }] })).to.throw(
      /registered twice/,
    );
  });

  describe('broken definitions are refused when the service is built, naming the plugin, the method and the key', () => {
    // Plain objects, as a JavaScript plugin module exports them: nothing type-checked them.
    const build =
      (plugin: unknown, methods: unknown[] = []) =>
      () =>
        createRpc({ logger: silent, plugins: [plugin as Plugin], methods: methods as never });
    const cases: [string, unknown, string][] = [
      [
        'a method with no handler',
        { name: 'greet', methods: [{ name: 'hello' }] },
        'plugin "greet", method "hello": no handler: handler must be a function',
      ],
      [
        'a misspelled handler',
        { name: 'greet', methods: [{ name: 'hello', handeler: () => 'hi' }] },
        'plugin "greet", method "hello": unknown key "handeler": did you mean "handler"?',
      ],
      [
        'a handler that is not a function',
        { name: 'greet', methods: [{ name: 'hello', handler: 'hi' }] },
        'plugin "greet", method "hello": handler must be a function',
      ],
      [
        'a method with a misspelled name',
        { name: 'greet', methods: [{ nmae: 'hello', handler: () => 'hi' }] },
        'plugin "greet", methods[0]: unknown key "nmae": did you mean "name"?',
      ],
      [
        'a method with a key no method has',
        { name: 'greet', methods: [{ name: 'hello', handler: () => 'hi', cache: true }] },
        'plugin "greet", method "hello": unknown key "cache"; a method has name, summary, description, params, result, paramsError, errorNullOnPathStyle, guard, handler',
      ],
      [
        'a plugin with a misspelled name',
        { nmae: 'greet', methods: [] },
        'the plugin at plugins[0]: unknown key "nmae": did you mean "name"?',
      ],
      ['a plugin with no name', { methods: [] }, 'the plugin at plugins[0]: name must be a non-empty string'],
      [
        'a plugin with misspelled methods',
        { name: 'greet', mehtods: [{ name: 'hello', handler: () => 'hi' }] },
        'plugin "greet": unknown key "mehtods": did you mean "methods"?',
      ],
      [
        'methods that are no array',
        { name: 'greet', methods: {} },
        'plugin "greet": methods must be an array',
      ],
      [
        'a subscription with no start',
        {
          name: 'greet',
          subscriptions: [
            { subscribe: 'aSubscribe', unsubscribe: 'aUnsubscribe', notification: 'aNotification' },
          ],
        },
        'plugin "greet", subscription "aSubscribe": start must be a function',
      ],
      [
        'a stop that is no function',
        { name: 'greet', stop: true },
        'plugin "greet": stop must be a function',
      ],
    ];
    for (const [what, plugin, message] of cases) {
      it(what, () => expect(build(plugin)).to.throw(message));
    }

    it('a custom method with no handler', () => {
      expect(build({ name: 'ok' }, [{ name: 'hello' }])).to.throw(
        'the custom methods, method "hello": no handler: handler must be a function',
      );
    });

    it('a plugin may carry an API of its own beside its definition (host.statuses.track)', () => {
      const plugin = {
        name: 'api',
        methods: [method('getThing')],
        track: () => undefined,
        store: {},
        stop: () => undefined,
      };
      expect(createRpc({ logger: silent, plugins: [plugin] }).methodNames).to.include('getThing');
    });
  });

  it('starts dependencies first and stops in reverse order', async () => {
    const events: string[] = [];
    const p = (name: string, dependencies: string[] = []): Plugin => ({
      name,
      dependencies,
      start: () => void events.push(`start ${name}`),
      stop: () => void events.push(`stop ${name}`),
    });
    const rpc = createRpc({ logger: silent, plugins: [p('c', ['b']), p('b', ['a']), p('a')] });
    await rpc.start();
    await rpc.stop();
    expect(events).to.deep.equal(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('a plugin that fails to start stops the ones already started', async () => {
    const events: string[] = [];
    const rpc = createRpc({
      logger: silent,
      plugins: [
        { name: 'a', start: () => void events.push('start a'), stop: () => void events.push('stop a') },
        {
          name: 'b',
          dependencies: ['a'],
          start: () => {
            throw new Error('no config');
          },
        },
      ],
    });
    let failure: unknown;
    await rpc.start().catch((e: unknown) => (failure = e));
    expect((failure as Error).message).to.equal('no config');
    expect(events).to.deep.equal(['start a', 'stop a']);
  });

  it('options that break the core options schema are refused naming the key and rule', () => {
    expect(() => createRpc({ logger: silent, limits: { maxBatchLength: 0 } })).to.throw(
      'rollup-router core options: /limits/maxBatchLength must be >= 1 (minimum)',
    );
    expect(() => createRpc({ logger: silent, ...({ nope: 1 } as object) })).to.throw(
      /\/nope .*additionalProperties/,
    );
  });
});
