import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accessHooks, basicCheck, bearerCheck, UnauthorizedError, validateAccessSettings } from './auth.js';
import type { AuthorizationInput } from './config.js';

const withAuthorization = (authorization?: string): AuthorizationInput => ({
  method: 'POST',
  path: '/sparql/update',
  headers: authorization === undefined ? {} : { authorization },
});
const basic = (credentials: string): string => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;

describe('bearerCheck', () => {
  const check = bearerCheck('tok-1');

  it('accepts the token in any case of the scheme, and nothing else', () => {
    assert.ok(check.accepts('Bearer tok-1'));
    assert.ok(check.accepts('bearer   tok-1'));
    assert.ok(!check.accepts('Bearer tok-12'));
    assert.ok(!check.accepts('Bearer tok-'));
    assert.ok(!check.accepts('Bearer'));
    assert.ok(!check.accepts('Basic tok-1'));
    assert.ok(!check.accepts('tok-1'));
    assert.ok(!check.accepts(undefined));
    assert.deepEqual(check.challenges, ['Bearer realm="quiver"']);
  });
});

describe('basicCheck', () => {
  const check = basicCheck('ann', 'pä:ss');

  it('accepts the user and the password (which may contain colons), as UTF-8', () => {
    assert.ok(check.accepts(basic('ann:pä:ss')));
    assert.ok(!check.accepts(basic('ann:pä:s')));
    assert.ok(!check.accepts(basic('anne:pä:ss')));
    assert.ok(!check.accepts(basic('ann')));
    assert.ok(!check.accepts('Bearer pä:ss'));
    assert.deepEqual(check.challenges, ['Basic realm="quiver", charset="UTF-8"']);
  });
});

describe('accessHooks', () => {
  it('leaves both kinds of request open without credentials', () => {
    const hooks = accessHooks({});
    assert.equal(hooks.authorizeUpdate, undefined);
    assert.equal(hooks.authorizeQuery, undefined);
  });

  it('protects writes only with an update token, with a 401 that names the scheme', () => {
    const hooks = accessHooks({ updateToken: 'w' });
    assert.equal(hooks.authorizeQuery, undefined);
    hooks.authorizeUpdate!(withAuthorization('Bearer w'));
    assert.throws(
      () => hooks.authorizeUpdate!(withAuthorization('Bearer x')),
      (error: unknown) => error instanceof UnauthorizedError && error.status === 401 && error.headers['www-authenticate'] === 'Bearer realm="quiver"',
    );
  });

  it('accepts either scheme when both are set, and challenges with both', () => {
    const hooks = accessHooks({ updateToken: 'w', updateUser: 'u', updatePassword: 'p' });
    hooks.authorizeUpdate!(withAuthorization('Bearer w'));
    hooks.authorizeUpdate!(withAuthorization(basic('u:p')));
    assert.throws(
      () => hooks.authorizeUpdate!(withAuthorization()),
      (error: unknown) =>
        error instanceof UnauthorizedError && error.headers['www-authenticate'] === 'Bearer realm="quiver", Basic realm="quiver", charset="UTF-8"',
    );
  });

  it('lets writers read, and closes writes when only reads are protected', () => {
    const both = accessHooks({ queryToken: 'r', updateToken: 'w' });
    both.authorizeQuery!(withAuthorization('Bearer r'));
    both.authorizeQuery!(withAuthorization('Bearer w'));
    assert.throws(() => both.authorizeUpdate!(withAuthorization('Bearer r')), UnauthorizedError);
    const readOnly = accessHooks({ queryToken: 'r' });
    readOnly.authorizeUpdate!(withAuthorization('Bearer r'));
    assert.throws(() => readOnly.authorizeUpdate!(withAuthorization()), UnauthorizedError);
  });

  it('never puts a secret into its messages', () => {
    const hooks = accessHooks({ updateToken: 'very-secret', updateUser: 'u', updatePassword: 'also-secret' });
    try {
      hooks.authorizeUpdate!(withAuthorization('Bearer sent-guess'));
      assert.fail('refused');
    } catch (error) {
      const text = (error as Error).message + JSON.stringify((error as UnauthorizedError).headers);
      for (const secret of ['very-secret', 'also-secret', 'sent-guess']) assert.ok(!text.includes(secret));
    }
  });
});

describe('validateAccessSettings', () => {
  it('refuses settings that cannot work', () => {
    assert.throws(() => validateAccessSettings({ updateToken: '' }), /token/);
    assert.throws(() => validateAccessSettings({ queryToken: 'two words' }), /token/);
    assert.throws(() => validateAccessSettings({ updateUser: 'u' }), /go together/);
    assert.throws(() => validateAccessSettings({ updatePassword: 'p' }), /go together/);
    assert.throws(() => validateAccessSettings({ updateUser: 'a:b', updatePassword: 'p' }), /colon/);
    validateAccessSettings({ updateToken: 't', updateUser: 'u', updatePassword: 'p w', queryToken: 'q' });
  });
});
