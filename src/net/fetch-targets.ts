/**
 * Which hosts LOAD and SERVICE may fetch from. Anybody who may send a query can name a SERVICE
 * endpoint, and anybody who may write can name a LOAD document, so by default only the public
 * internet is reachable: never this machine (the server itself, a database on loopback), the
 * private network behind it, link-local cloud metadata endpoints, or any other special-purpose
 * address. The check is on addresses, not on how the URL spells them: the URL parser already turns
 * `2130706433`, `0x7f.1` and `0177.0.0.1` into `127.0.0.1`, and names are checked in every address
 * they resolve to, at connect time (outbound-http.ts), so DNS cannot answer differently later.
 *
 * An allow list (`quiver serve --fetch-allow`) opens targets the default refuses. Its entries:
 * - a host name, `data.internal`, or every subdomain, `*.corp.example`: fetches by that name may
 *   go wherever it resolves (the operator trusts the name);
 * - an address, `127.0.0.1` or `::1`, or a network, `10.0.0.0/8` or `fd00::/8`: fetches may
 *   connect to it, however the URL names it;
 * - either with a port, `127.0.0.1:8080`, `[::1]:8080`, `data.internal:8443`: only that port;
 * - `*`: anything (no target policy).
 */
import type { BlockList } from 'node:net';

/**
 * node:net, loaded when a fetch is first judged: a one-shot `quiver query` that fetches nothing
 * need not load it (bench/cli-startup.ts).
 */
function net(): typeof import('node:net') {
  return process.getBuiltinModule('node:net');
}

/** A category of addresses that is not the public internet, with the reason a refusal gives. */
interface AddressCategory {
  name: string;
  subnets: [address: string, prefix: number, family: 'ipv4' | 'ipv6'][];
}

const NON_PUBLIC: AddressCategory[] = [
  {
    name: 'an unspecified address',
    subnets: [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  },
  {
    name: 'a loopback address',
    subnets: [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  },
  {
    name: 'a private address',
    subnets: [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      // Carrier-grade NAT: the provider's network, not the internet.
      ['100.64.0.0', 10, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
      ['fec0::', 10, 'ipv6'],
    ],
  },
  {
    name: 'a link-local address',
    subnets: [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  },
  {
    name: 'a reserved or special-purpose address',
    subnets: [
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['224.0.0.0', 4, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
      ['2001:db8::', 32, 'ipv6'],
      // Teredo and other protocol assignments, and 6to4: tunnels whose far end may be anywhere.
      ['2001::', 23, 'ipv6'],
      ['2002::', 16, 'ipv6'],
    ],
  },
];

interface NonPublicLists {
  categories: { name: string; list: BlockList }[];
  /** Global unicast IPv6: anything outside it (NAT64, IPv4-compatible, unassigned) is not the internet. */
  globalUnicastV6: BlockList;
}

let nonPublicLists: NonPublicLists | undefined;

/** The address lists, built on first use (and node:net with them). */
function lists(): NonPublicLists {
  if (nonPublicLists) return nonPublicLists;
  const { BlockList } = net();
  const categories = NON_PUBLIC.map(({ name, subnets }) => {
    const list = new BlockList();
    for (const [address, prefix, family] of subnets) list.addSubnet(address, prefix, family);
    return { name, list };
  });
  const globalUnicastV6 = new BlockList();
  globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
  return (nonPublicLists = { categories, globalUnicastV6 });
}

/**
 * Why an address is not on the public internet (e.g. "a loopback address"), or undefined when it
 * is. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged by their IPv4 address.
 */
export function nonPublicReason(address: string): string | undefined {
  const family = familyOf(address);
  const { categories, globalUnicastV6 } = lists();
  for (const { name, list } of categories) if (list.check(address, family)) return name;
  if (family === 'ipv6' && !globalUnicastV6.check(address, 'ipv6')) return 'a reserved or special-purpose address';
  return undefined;
}

function familyOf(address: string): 'ipv4' | 'ipv6' {
  return net().isIPv4(address) ? 'ipv4' : 'ipv6';
}

/** One --fetch-allow entry, parsed. */
type AllowEntry = { kind: 'any' } | { kind: 'name'; name: string; subdomains: boolean; port?: number } | { kind: 'network'; list: BlockList; port?: number };

/**
 * The target policy: which addresses a fetch may connect to. Built once per allow list (see
 * `targetPolicy`), used for every fetch.
 */
export class TargetPolicy {
  private readonly entries: AllowEntry[];

  /** Throws an Error naming the first entry it cannot read. */
  constructor(allow: readonly string[] = []) {
    this.entries = allow
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map(parseAllowEntry);
  }

  /** Whether a host name (as the URL parser normalized it) is opened by name. */
  admitsName(hostname: string, port: number): boolean {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return this.entries.some((entry) => {
      if (entry.kind === 'any') return true;
      if (entry.kind !== 'name' || (entry.port !== undefined && entry.port !== port)) return false;
      return entry.subdomains ? name.endsWith(`.${entry.name}`) : name === entry.name;
    });
  }

  /**
   * Why a connection to `address` (an IP address) on `port` is refused, or undefined when it may
   * go ahead: public addresses always may, others when the allow list opens them.
   */
  refusal(address: string, port: number): string | undefined {
    const reason = nonPublicReason(address);
    if (reason === undefined) return undefined;
    const family = familyOf(address);
    const opened = this.entries.some((entry) => {
      if (entry.kind === 'any') return true;
      if (entry.kind !== 'network' || (entry.port !== undefined && entry.port !== port)) return false;
      return entry.list.check(address, family);
    });
    return opened ? undefined : reason;
  }
}

function parseAllowEntry(entry: string): AllowEntry {
  if (entry === '*') return { kind: 'any' };
  const { host, port } = splitPort(entry);
  const [address, prefixText, extra] = host.split('/');
  const family = net().isIP(address);
  if (family !== 0) {
    const bits = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > bits || (prefixText !== undefined && prefixText.trim() === '')) {
      throw new Error(`'${entry}' is not an address, a network (address/prefix) or a host name`);
    }
    const list = new (net().BlockList)();
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    return { kind: 'network', list, port };
  }
  const subdomains = host.startsWith('*.');
  const name = (subdomains ? host.slice(2) : host).toLowerCase().replace(/\.$/, '');
  if (prefixText !== undefined || !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) {
    throw new Error(`'${entry}' is not an address, a network (address/prefix) or a host name`);
  }
  return { kind: 'name', name, subdomains, port };
}

/** `host:port`, `[v6]:port`, or no port (a bare IPv6 address has colons of its own). */
function splitPort(entry: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1], port: portNumber(bracketed[2], entry) };
  const colons = entry.split(':').length - 1;
  if (colons !== 1) return { host: entry };
  const at = entry.lastIndexOf(':');
  return { host: entry.slice(0, at), port: portNumber(entry.slice(at + 1), entry) };
}

function portNumber(text: string | undefined, entry: string): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new Error(`'${entry}' has no valid port`);
  return port;
}

const policies = new Map<string, TargetPolicy>();

/** The policy of an allow list, built once: workers ask for it with every job. */
export function targetPolicy(allow: readonly string[] = []): TargetPolicy {
  const key = allow.join(',');
  let policy = policies.get(key);
  if (policy === undefined) {
    policy = new TargetPolicy(allow);
    if (policies.size > 16) policies.clear();
    policies.set(key, policy);
  }
  return policy;
}

/** An IP address as a URL's hostname has it (`[::1]` for IPv6), without brackets; else undefined. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net().isIP(bare) !== 0 ? bare : undefined;
}
