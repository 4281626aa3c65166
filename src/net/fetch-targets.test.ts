import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { literalAddress, nonPublicReason, TargetPolicy } from './fetch-targets.js';

/** The address a URL's host names, as the URL parser reads it (the way a fetch does). */
function addressOf(host: string): string | undefined {
  return literalAddress(new URL(`http://${host}/`).hostname);
}

describe('the default target policy', () => {
  it('refuses loopback however the URL spells it', () => {
    const spellings = [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '0x7f000001',
      '0177.0.0.1',
      '127.1',
      '127.255.255.254',
      '[::1]',
      '[0:0:0:0:0:0:0:1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
    ];
    for (const spelling of spellings) {
      const address = addressOf(spelling);
      assert.ok(address, spelling);
      assert.equal(nonPublicReason(address), 'a loopback address', spelling);
    }
  });

  it('refuses private, link-local, unspecified and special-purpose addresses, IPv4 and IPv6', () => {
    const refused: Record<string, string> = {
      '10.1.2.3': 'a private address',
      '172.16.0.1': 'a private address',
      '172.31.255.255': 'a private address',
      '192.168.1.1': 'a private address',
      '100.64.0.1': 'a private address',
      'fd12::1': 'a private address',
      '::ffff:10.0.0.1': 'a private address',
      '169.254.169.254': 'a link-local address',
      'fe80::1': 'a link-local address',
      '0.0.0.0': 'an unspecified address',
      '::': 'an unspecified address',
      '224.0.0.1': 'a reserved or special-purpose address',
      '255.255.255.255': 'a reserved or special-purpose address',
      '192.0.2.1': 'a reserved or special-purpose address',
      'ff02::1': 'a reserved or special-purpose address',
      '2001:db8::1': 'a reserved or special-purpose address',
      '64:ff9b::7f00:1': 'a reserved or special-purpose address',
      '::127.0.0.1': 'a reserved or special-purpose address',
    };
    for (const [address, reason] of Object.entries(refused)) assert.equal(nonPublicReason(address), reason, address);
    assert.equal(addressOf('0'), '0.0.0.0');
    assert.equal(addressOf('[::]'), '::');
  });

  it('lets the public internet through', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e']) {
      assert.equal(nonPublicReason(address), undefined, address);
      assert.equal(new TargetPolicy().refusal(address, 80), undefined, address);
    }
  });

  it('opens no name, and reads no host name as an address', () => {
    assert.equal(new TargetPolicy().admitsName('localhost', 80), false);
    assert.equal(addressOf('localhost'), undefined);
    assert.equal(addressOf('example.org'), undefined);
  });
});

describe('an allow list (--fetch-allow)', () => {
  it('opens an address on every port, or on one', () => {
    const policy = new TargetPolicy(['127.0.0.1', '[::1]:8080']);
    assert.equal(policy.refusal('127.0.0.1', 9999), undefined);
    assert.equal(policy.refusal('::ffff:127.0.0.1', 9999), undefined, 'its IPv4-mapped spelling too');
    assert.equal(policy.refusal('127.0.0.2', 80), 'a loopback address');
    assert.equal(policy.refusal('::1', 8080), undefined);
    assert.equal(policy.refusal('::1', 8081), 'a loopback address');
  });

  it('opens a network', () => {
    const policy = new TargetPolicy(['10.0.0.0/8', 'fd00::/8', '127.0.0.1:7878']);
    assert.equal(policy.refusal('10.20.30.40', 443), undefined);
    assert.equal(policy.refusal('11.0.0.1', 443), undefined, 'public anyway');
    assert.equal(policy.refusal('192.168.0.1', 443), 'a private address');
    assert.equal(policy.refusal('fd00::5', 443), undefined);
    assert.equal(policy.refusal('fc00::5', 443), 'a private address');
    assert.equal(policy.refusal('127.0.0.1', 7878), undefined);
    assert.equal(policy.refusal('127.0.0.1', 7879), 'a loopback address');
  });

  it('opens a host name, its subdomains with *., on a port when one is given', () => {
    const policy = new TargetPolicy(['data.internal', '*.corp.example:8443', 'LocalHost:8080']);
    assert.equal(policy.admitsName('data.internal', 80), true);
    assert.equal(policy.admitsName('DATA.internal.', 80), true);
    assert.equal(policy.admitsName('other.internal', 80), false);
    assert.equal(policy.admitsName('a.b.corp.example', 8443), true);
    assert.equal(policy.admitsName('corp.example', 8443), false);
    assert.equal(policy.admitsName('a.corp.example', 443), false);
    assert.equal(policy.admitsName('localhost', 8080), true);
    assert.equal(policy.admitsName('localhost', 8081), false);
    // A name opens that name only, not the addresses it resolves to.
    assert.equal(policy.refusal('127.0.0.1', 8080), 'a loopback address');
  });

  it('opens everything with *', () => {
    const policy = new TargetPolicy(['*']);
    assert.equal(policy.refusal('127.0.0.1', 1), undefined);
    assert.equal(policy.admitsName('anything', 1), true);
  });

  it('refuses entries it cannot read', () => {
    for (const entry of ['10.0.0.0/33', '10.0.0.0/', '::1/129', 'host:0', 'host:99999', 'host:x', 'bad host', 'a/b', '1.2.3.4/8/9', 'http://x']) {
      assert.throws(() => new TargetPolicy([entry]), /is not an address|has no valid port/, entry);
    }
  });
});
