/** IRI reference resolution (RFC 3986 section 5.2), for IRI()/URI() against the query's base. */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

interface Parts {
  scheme?: string;
  authority?: string;
  path: string;
  query?: string;
  fragment?: string;
}

const REFERENCE = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function split(iri: string): Parts {
  const m = REFERENCE.exec(iri)!;
  return { scheme: m[1], authority: m[2], path: m[3], query: m[4], fragment: m[5] };
}

function join(p: Parts): string {
  let out = '';
  if (p.scheme !== undefined) out += p.scheme + ':';
  if (p.authority !== undefined) out += '//' + p.authority;
  out += p.path;
  if (p.query !== undefined) out += '?' + p.query;
  if (p.fragment !== undefined) out += '#' + p.fragment;
  return out;
}

function removeDotSegments(path: string): string {
  const input = path.split('/');
  const output: string[] = [];
  for (let i = 0; i < input.length; i++) {
    const segment = input[i];
    const last = i === input.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && output.length > 1) output.pop();
      if (last) output.push('');
    } else {
      output.push(segment);
    }
  }
  return output.join('/');
}

function merge(base: Parts, path: string): string {
  if (base.authority !== undefined && base.path === '') return '/' + path;
  const slash = base.path.lastIndexOf('/');
  return slash < 0 ? path : base.path.slice(0, slash + 1) + path;
}

export function resolveIri(reference: string, base: string | undefined): string {
  if (base === undefined || SCHEME.test(reference)) return reference;
  const r = split(reference);
  const b = split(base);
  const t: Parts = { path: '' };
  if (r.authority !== undefined) {
    t.authority = r.authority;
    t.path = removeDotSegments(r.path);
    t.query = r.query;
  } else {
    if (r.path === '') {
      t.path = b.path;
      t.query = r.query ?? b.query;
    } else {
      t.path = r.path.startsWith('/') ? removeDotSegments(r.path) : removeDotSegments(merge(b, r.path));
      t.query = r.query;
    }
    t.authority = b.authority;
  }
  t.scheme = b.scheme;
  t.fragment = r.fragment;
  return join(t);
}
