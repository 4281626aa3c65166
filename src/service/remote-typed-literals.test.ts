import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { respellTypedLiterals, TypedLiteralRespeller } from './remote-typed-literals.js';

const DOCUMENT =
  '{ "head": { "vars": ["p", "v"] }, "results": { "bindings": [\n' +
  '  { "p": { "type": "uri", "value": "http://example.org/p" }, "v": { "type": "typed-literal", "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "1" } },\n' +
  '  { "p": { "type" :\n "typed-literal", "value": "\\"type\\": \\"typed-literal\\"" }, "v": { "value": "typed-literal", "type":"typed-literal" } } ] } }';

const RESPELLED =
  '{ "head": { "vars": ["p", "v"] }, "results": { "bindings": [\n' +
  '  { "p": { "type": "uri", "value": "http://example.org/p" }, "v": { "type": "literal"      , "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "1" } },\n' +
  '  { "p": { "type" :\n "literal"      , "value": "\\"type\\": \\"typed-literal\\"" }, "v": { "value": "typed-literal", "type":"literal"       } } ] } }';

describe('typed-literal respelled as literal in SPARQL JSON passed on', () => {
  it('respells the value of a "type" key only, keeping the length', () => {
    const bytes = Buffer.from(DOCUMENT);
    assert.equal(Buffer.from(respellTypedLiterals(bytes)).toString(), RESPELLED);
    assert.deepEqual(JSON.parse(RESPELLED).results.bindings[1].p.value, '"type": "typed-literal"');
  });

  it('respells the same in a document cut anywhere into chunks', () => {
    for (let size = 1; size <= DOCUMENT.length; size++) {
      const respeller = new TypedLiteralRespeller();
      const out: Buffer[] = [];
      for (let at = 0; at < DOCUMENT.length; at += size) out.push(Buffer.from(respeller.push(Buffer.from(DOCUMENT.slice(at, at + size)))));
      const rest = respeller.end();
      if (rest) out.push(rest);
      assert.equal(Buffer.concat(out).toString(), RESPELLED, `chunks of ${size} bytes`);
    }
    for (let cut = 0; cut <= DOCUMENT.length; cut++) {
      const respeller = new TypedLiteralRespeller();
      const out = [respeller.push(Buffer.from(DOCUMENT.slice(0, cut))), respeller.push(Buffer.from(DOCUMENT.slice(cut))), respeller.end() ?? Buffer.alloc(0)];
      assert.equal(Buffer.concat(out).toString(), RESPELLED, `cut at ${cut}`);
    }
  });
});
