/**
 * Where a LOAD or SERVICE may point, spelled the ways an attacker spells it: the loopback address in
 * decimal, hex, octal, short and IPv4-mapped forms; other loopback and unspecified addresses;
 * private, link-local, carrier-grade NAT, multicast, documentation and NAT64 ranges; names.
 *
 * The server under test runs with `--fetch-allow 127.0.0.1:PEER,127.0.0.1:SELF` (see allowList),
 * so exactly the address 127.0.0.1, however spelled, on those two ports is open. Whether a target is
 * open is worked out here from that rule alone, not with the server's policy code: the URL parser
 * says which address a spelling is, and names are looked up as the server looks them up (every
 * address; a name is open only if all of them are).
 */
import { lookup } from 'node:dns/promises';
import type { Random } from './prng.js';

/** `open`: the fetch goes ahead; `refused`: the policy stops it before connecting; `unresolvable`: DNS has no answer. */
export type Reach = 'open' | 'refused' | 'unresolvable';

export interface TargetPorts {
  /** The test's own web server (hostile-peer.ts). */
  peer: number;
  /** The server under test. */
  self: number;
  /** A listener nobody may reach. */
  sentinel: number;
}

/** Spellings that the URL parser reads as 127.0.0.1 itself. */
export const SPELLINGS_OF_127_0_0_1 = [
  '127.0.0.1',
  '2130706433',
  '0x7f.1',
  '0x7f000001',
  '0177.0.0.1',
  '017700000001',
  '127.1',
  '127.0.1',
  '127.000.000.001',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
];

/** Other loopback and unspecified addresses (connecting to 0.0.0.0 reaches this machine too). */
const OTHER_LOCAL = ['[::1]', '[0:0:0:0:0:0:0:1]', '127.0.0.2', '0x7f.0.0.2', '127.255.255.254', '0', '0.0.0.0', '[::]', '[::7f00:1]', '[64:ff9b::7f00:1]'];

/** Private, link-local, shared, multicast, broadcast and documentation addresses: never connected to. */
const PRIVATE_AND_SPECIAL = [
  '10.0.0.1',
  '0xa.1',
  '10.255.255.254',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.0.1',
  '0xc0a80001',
  '100.64.0.1',
  '169.254.169.254',
  '[fd00::1]',
  '[fc00::1]',
  '[fe80::1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:a9fe:a9fe]',
  '224.0.0.1',
  '255.255.255.255',
  '192.0.2.1',
  '198.18.0.1',
  '[2001:db8::1]',
  '[ff02::1]',
];

const NAMES = ['localhost', 'LOCALHOST', 'localhost.', 'LocalHost'];

/** Every host spelling of this module: for a fuzzer that confines what it sends to this machine. */
export const ALL_HOSTS = [...SPELLINGS_OF_127_0_0_1, ...OTHER_LOCAL, ...PRIVATE_AND_SPECIAL, ...NAMES];

/** How the URL parser writes 127.0.0.1 as an IPv4 address or an IPv4-mapped IPv6 one. */
const THE_OPEN_ADDRESS = new Set(['127.0.0.1', '[::ffff:7f00:1]', '::ffff:7f00:1', '::ffff:127.0.0.1']);

export class TargetSpellings {
  private constructor(
    readonly ports: TargetPorts,
    /** The addresses each name resolves to; undefined when it does not resolve. */
    private readonly resolved: Map<string, string[] | undefined>,
  ) {}

  static async resolve(ports: TargetPorts): Promise<TargetSpellings> {
    const resolved = new Map<string, string[] | undefined>();
    for (const name of NAMES) {
      const key = name.toLowerCase();
      if (resolved.has(key)) continue;
      const addresses = await lookup(key, { all: true }).catch(() => undefined);
      resolved.set(
        key,
        addresses?.map((a) => a.address),
      );
    }
    return new TargetSpellings(ports, resolved);
  }

  /** The value of `--fetch-allow` that makes the rule of this module true. */
  get allowList(): string {
    return `127.0.0.1:${this.ports.peer},127.0.0.1:${this.ports.self}`;
  }

  /** `host:port`, or `host` alone for port 80. */
  authority(host: string, port: number): string {
    return port === 80 ? host : `${host}:${port}`;
  }

  /** What the server must do with a fetch from `host` (as spelled) on `port`. */
  reachOf(host: string, port: number): Reach {
    const openPort = port === this.ports.peer || port === this.ports.self;
    const name = host.toLowerCase();
    if (this.resolved.has(name)) {
      const addresses = this.resolved.get(name);
      if (addresses === undefined) return 'unresolvable';
      return openPort && addresses.every((address) => THE_OPEN_ADDRESS.has(address)) ? 'open' : 'refused';
    }
    const hostname = new URL(`http://${host}/`).hostname;
    return openPort && THE_OPEN_ADDRESS.has(hostname) ? 'open' : 'refused';
  }

  /** A spelling of 127.0.0.1 (or a name that resolves to it alone). */
  openHost(random: Random): string {
    const names = NAMES.filter((name) => this.resolved.get(name.toLowerCase())?.every((address) => THE_OPEN_ADDRESS.has(address)));
    return random.pick([...SPELLINGS_OF_127_0_0_1, ...names]);
  }

  /** A host and port the server must not fetch from: refused by the policy, or a name that does not resolve. */
  closedTarget(random: Random): { host: string; port: number; reach: Reach } {
    for (;;) {
      const host = random.pick(ALL_HOSTS);
      const port = random.pick([this.ports.peer, this.ports.self, this.ports.sentinel, this.ports.sentinel, 80, random.int(1024, 65535)]);
      const reach = this.reachOf(host, port);
      if (reach !== 'open') return { host, port, reach };
    }
  }
}
