/**
 * Abbreviation of IRIs to Turtle prefixed names. A prefixed name is used only when the local part
 * is a valid PN_LOCAL as written (no escapes needed); otherwise the IRI stays `<...>`, so the
 * document is valid whatever the IRIs contain.
 */
import { escapeIri } from './escaping.js';

const PN_CHARS_BASE =
  'A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const PN_CHARS_U = PN_CHARS_BASE + '_';
const PN_CHARS = PN_CHARS_U + '\\-0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const PERCENT = '%[0-9A-Fa-f]{2}';

// The grammar's ranges include combining marks (U+0300–U+036F), which is what the lint rule flags.
// eslint-disable-next-line no-misleading-character-class
const PN_PREFIX = new RegExp(`^(?:[${PN_CHARS_BASE}](?:[${PN_CHARS}.]*[${PN_CHARS}])?)?$`, 'u');
const PN_LOCAL = new RegExp(
  // eslint-disable-next-line no-misleading-character-class
  `^(?:(?:[${PN_CHARS_U}:0-9]|${PERCENT})(?:(?:[${PN_CHARS}.:]|${PERCENT})*(?:[${PN_CHARS}:]|${PERCENT}))?)?$`,
  'u',
);

export function isValidPrefixName(name: string): boolean {
  return PN_PREFIX.test(name);
}

/** The common all-ASCII case of PN_LOCAL, without the cost of the full Unicode classes. */
const ASCII_PN_LOCAL = /^(?:[A-Za-z0-9_:](?:[A-Za-z0-9_.:-]*[A-Za-z0-9_:-])?)?$/;
const ASCII_ONLY = /^[\x20-\x7e]*$/;

export function isValidLocalName(local: string): boolean {
  if (ASCII_PN_LOCAL.test(local)) return true;
  // Other ASCII strings can still be valid through percent escapes; non-ASCII through the classes.
  return (!ASCII_ONLY.test(local) || local.includes('%')) && PN_LOCAL.test(local);
}

/** Renders IRIs for Turtle and TriG, abbreviating with the prefixes it was given. */
export class TurtleIriWriter {
  /** Valid prefixes, longest namespace first, so that the most specific one wins. */
  private readonly prefixes: { name: string; namespace: string }[];
  /** In the order given, for the declarations. */
  private readonly declared: { name: string; namespace: string }[];

  constructor(prefixes: Record<string, string>) {
    this.declared = Object.entries(prefixes)
      .filter(([name, namespace]) => isValidPrefixName(name) && namespace.length > 0)
      .map(([name, namespace]) => ({ name, namespace }));
    this.prefixes = [...this.declared].sort((a, b) => b.namespace.length - a.namespace.length);
  }

  /** The `@prefix` lines (empty when there are none). */
  declarations(keyword: '@prefix' | 'PREFIX' = '@prefix'): string {
    let out = '';
    for (const { name, namespace } of this.declared) {
      out += keyword + ' ' + name + ': <' + escapeIri(namespace) + '>' + (keyword === '@prefix' ? ' .\n' : '\n');
    }
    return out;
  }

  /** No cache: a few `startsWith` and an ASCII regex cost less than a Map of mostly unique IRIs. */
  iri(iri: string): string {
    for (const { name, namespace } of this.prefixes) {
      if (iri.startsWith(namespace)) {
        const local = iri.slice(namespace.length);
        if (isValidLocalName(local)) return name + ':' + local;
      }
    }
    return '<' + escapeIri(iri) + '>';
  }
}
