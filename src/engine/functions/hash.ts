/**
 * MD5, SHA1, SHA256, SHA384, SHA512 of a simple literal's UTF-8 bytes, as lowercase hex. node:crypto
 * is taken when a query first hashes: loading it costs a one-shot `quiver query` some 10 ms.
 */
import type { Term } from '../../rdf/index.js';
import { simpleLiteralArgument } from './strings.js';
import { simpleLiteral } from './literal-values.js';

function hashFunction(algorithm: string): (args: Term[]) => Term {
  return ([arg]) => simpleLiteral(process.getBuiltinModule('node:crypto').createHash(algorithm).update(simpleLiteralArgument(arg), 'utf8').digest('hex'));
}

export const hashFunctions: Record<string, (args: Term[]) => Term> = {
  md5: hashFunction('md5'),
  sha1: hashFunction('sha1'),
  sha256: hashFunction('sha256'),
  sha384: hashFunction('sha384'),
  sha512: hashFunction('sha512'),
};
