import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { iriReferenceError, iriSyntaxError, isAbsoluteIri } from './iri-syntax.js';

/** Odd but valid: each must pass. */
export const VALID_IRIS = [
  'http://example.org/',
  'http://example.org/a/b?c=d&e=f#g',
  'http://example.org/a#',
  'http://x.example:8080/path',
  'http://x.example:/empty-port',
  'http://[::1]/',
  'http://[::1]:8080/a',
  'http://[2001:db8::7]/c=GB?objectClass?one',
  'http://[2001:db8:0:0:0:0:0:1]/',
  'http://[::ffff:192.0.2.1]/',
  'http://[v7.fe80::a+en1]/',
  'http://user:pass@x.example/',
  'http://x.example/%41%c3%A9',
  'http://x.example/caf\u00e9/\u6f22\u5b57#\u00e9',
  'http://x.example/\u{1F600}',
  "http://x.example/!$&'()*+,;=:@/?q",
  'urn:isbn:0451450523',
  'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
  'mailto:someone@example.org',
  'tag:example.org,2025:a',
  'file:///etc/hosts',
  'x-custom+scheme.v1:opaque',
  'javascript:alert(1)',
];

/** Each kind of invalid IRI, with what the message must mention. */
export const INVALID_IRIS: [string, RegExp][] = [
  ['http://x.example/a#b#c', /second '#'/],
  ['http://x.example/%zz', /'%'.*two hexadecimal digits/],
  ['http://x.example/%4', /'%'/],
  ['http://x.example/100%', /'%'/],
  ['http://[::1', /'\[' but has no '\]'/],
  ['http://[::1]x/', /followed by something other than ':'/],
  ['http://[1:2:3]/', /neither an IPv6 address/],
  ['http://[::1::2]/', /neither an IPv6 address/],
  ['http://[fe80::1%25eth0]/', /neither an IPv6 address/],
  ['http://x.example/a[1]', /outside the host/],
  ['http://x.example:80a/', /port '80a' is not a number/],
  ['http://a@b@x.example/', /more than one '@'/],
  ['http://x.example/a b', /control character U\+0020/],
  ['http://x.example/a\u0000', /control character U\+0000/],
  ['http://x.example/<a>', /'<'/],
  ['http://x.example/"', /'"'/],
  ['http://x.example/{a}', /'\{'/],
  ['http://x.example/a|b', /'\|'/],
  ['http://x.example/a\\b', /'\\'/],
  ['http://x.example/a^b', /'\^'/],
  ['http://x.example/a`b', /'`'/],
  ['http://x.example/\ud800', /unpaired surrogate/],
  ['no-scheme', /no scheme/],
  ['1http://x.example/', /no scheme/],
  ['', /no scheme/],
];

describe('IRI syntax (RFC 3987)', () => {
  it('accepts odd but valid IRIs: IP literals, ports, unicode, empty fragments, urn:, mailto:', () => {
    for (const iri of VALID_IRIS) assert.equal(iriSyntaxError(iri), undefined, iri);
  });

  it('says why each kind of invalid IRI is invalid', () => {
    for (const [iri, reason] of INVALID_IRIS) {
      const error = iriSyntaxError(iri);
      assert.ok(error !== undefined, `${JSON.stringify(iri)} is refused`);
      assert.match(error, reason, JSON.stringify(iri));
      assert.equal(isAbsoluteIri(iri), false);
    }
  });

  it('checks relative references the same way, before they are resolved', () => {
    for (const reference of ['', 'a', '#frag', '../a/b?c#d', '//host.example:80/p', '//[::1]/', '/a%20b', 'caf\u00e9']) {
      assert.equal(iriReferenceError(reference), undefined, reference);
    }
    for (const [reference, reason] of [
      ['a#b#c', /second '#'/],
      ['%zz', /'%'/],
      ['//[::1/', /no '\]'/],
      ['a b', /U\+0020/],
      ['1a:b', /first segment has a ':'/],
    ] as const) {
      assert.match(iriReferenceError(reference) ?? '', reason, reference);
    }
    for (const iri of VALID_IRIS) assert.equal(iriReferenceError(iri), undefined, iri);
  });

  it('is quick on ordinary IRIs (a sanity check, not a benchmark)', () => {
    const iris = Array.from({ length: 1000 }, (_, i) => `http://www.example.org/products/Product${i}#label`);
    const started = process.hrtime.bigint();
    let valid = 0;
    for (let round = 0; round < 1000; round++) for (const iri of iris) if (iriSyntaxError(iri) === undefined) valid++;
    const nsPerIri = Number(process.hrtime.bigint() - started) / 1e6;
    assert.equal(valid, 1e6);
    // Generous: a loaded shared machine. Measured about 40 ns per IRI of this length when quiet.
    assert.ok(nsPerIri < 2000, `${nsPerIri.toFixed(0)} ns per IRI`);
  });
});
