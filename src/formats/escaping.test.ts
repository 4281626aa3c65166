/** The escapers: exact output, and their fast path (the input itself when nothing needs escaping). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, escapeHtml, escapeIri, escapeNTriplesString, escapeXmlAttribute, escapeXmlText, jsonString } from './escaping.js';

describe('escaping', () => {
  it('returns clean strings unchanged', () => {
    const clean = 'plain-text_é/日本';
    for (const escape of [escapeNTriplesString, escapeIri, escapeXmlText, escapeXmlAttribute, escapeHtml, csvField]) {
      assert.equal(escape(clean), clean);
    }
    assert.equal(jsonString(clean), '"' + clean + '"');
  });

  it('N-Triples strings: ECHAR where there is one, \\u escapes for other controls', () => {
    assert.equal(escapeNTriplesString('"\\\n\r\t\b\f\u0001\u007f'), '\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u007F');
  });

  it('IRIs: characters IRIREF forbids become \\u escapes', () => {
    assert.equal(escapeIri('http://x/a b<c>"{}|^`\\'), 'http://x/a\\u0020b\\u003Cc\\u003E\\u0022\\u007B\\u007D\\u007C\\u005E\\u0060\\u005C');
  });

  it('JSON: control characters and lone surrogates escaped, output parses back', () => {
    const nasty = 'a"b\\c\n\u0000\u2028🎉';
    assert.equal(JSON.parse(jsonString(nasty)), nasty);
    assert.equal(jsonString('\ud800'), '"\\ud800"');
  });

  it('XML: markup escaped, CR kept as a reference, attribute whitespace kept, illegal characters replaced', () => {
    assert.equal(escapeXmlText('<a>&\r\n\t\u0001'), '&lt;a&gt;&amp;&#13;\n\t\ufffd');
    assert.equal(escapeXmlAttribute('"\'\n\t'), '&quot;&apos;&#10;&#9;');
  });

  it('HTML: safe in text and in quoted attributes', () => {
    assert.equal(escapeHtml(`<img src=x onerror="a('b')">&`), '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;');
  });

  it('CSV: quoted only when needed, quotes doubled', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "x"'), '"say ""x"""');
    assert.equal(csvField('line\nbreak'), '"line\nbreak"');
  });
});
