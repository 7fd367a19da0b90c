import { expect } from 'chai';
import { redactUrl } from '../src/redact-url.js';
import { basicAuthorization, withoutCredentials } from '../src/url-credentials.js';

const basic = (credentials: string): string => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;

describe('URL credentials: user info sent as Basic authorization, and never shown', () => {
  it('takes user info out of the URL and into an Authorization header value', () => {
    expect(withoutCredentials('http://reader:s3cret@127.0.0.1:17799')).to.deep.equal({
      url: 'http://127.0.0.1:17799/',
      authorization: basic('reader:s3cret'),
    });
    expect(withoutCredentials('wss://u:p@rpc.example.com/k?x=1').url).to.equal('wss://rpc.example.com/k?x=1');
  });

  it('percent-decodes user and password (UTF-8), and keeps a stray % as it is', () => {
    expect(basicAuthorization(new URL('https://a%40b:p%3Aw%C3%A9@h'))).to.equal(basic('a@b:p:wé'));
    expect(basicAuthorization(new URL('https://u:100%@h'))).to.equal(basic('u:100%'));
    expect(basicAuthorization(new URL('https://:only-password@h'))).to.equal(basic(':only-password'));
  });

  it('leaves a URL without user info unchanged', () => {
    expect(withoutCredentials('https://rpc.example.com/key')).to.deep.equal({
      url: 'https://rpc.example.com/key',
    });
    expect(basicAuthorization(new URL('https://rpc.example.com'))).to.equal(undefined);
  });

  it('redactUrl shows neither user info nor path keys, for http and ws URLs', () => {
    expect(redactUrl('http://reader:s3cret@127.0.0.1:17799')).to.equal('http://127.0.0.1:17799/…');
    expect(redactUrl('https://:s3cret@rpc.example.com')).to.equal('https://rpc.example.com/…');
    expect(redactUrl('wss://reader:s3cret@rpc.example.com/key')).to.equal('wss://rpc.example.com/…');
    expect(redactUrl('ws://127.0.0.1:17800')).to.equal('ws://127.0.0.1:17800');
  });
});
