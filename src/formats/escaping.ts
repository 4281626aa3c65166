/**
 * String escaping for every output syntax. Each function tests first and returns its input
 * untouched when nothing needs escaping, which is the common case on these hot paths.
 */
/* eslint-disable no-control-regex */

// ---- N-Triples / Turtle ----

// Canonical N-Triples (RDF 1.2) also escapes the noncharacters U+FFFE and U+FFFF.
const NT_STRING_SPECIAL = /["\\\u0000-\u001f\u007f\ufffe\uffff]/;
const NT_STRING_SPECIAL_ALL = /["\\\u0000-\u001f\u007f\ufffe\uffff]/g;
const NT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function uchar(c: string): string {
  return '\\u' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
}

function ntEscapeChar(c: string): string {
  return NT_ESCAPES[c] ?? uchar(c);
}

/** The inside of a quoted N-Triples/Turtle string (without the quotes). */
export function escapeNTriplesString(s: string): string {
  return NT_STRING_SPECIAL.test(s) ? s.replace(NT_STRING_SPECIAL_ALL, ntEscapeChar) : s;
}

// Characters IRIREF forbids; stored IRIs should never hold them, but the document stays parseable.
const IRI_SPECIAL = /[\u0000-\u0020<>"{}|^`\\]/;
const IRI_SPECIAL_ALL = /[\u0000-\u0020<>"{}|^`\\]/g;

/** The inside of an N-Triples/Turtle `<...>` IRI reference. */
export function escapeIri(iri: string): string {
  return IRI_SPECIAL.test(iri) ? iri.replace(IRI_SPECIAL_ALL, uchar) : iri;
}

// ---- JSON ----

// Surrogates go to the slow path too, so that a lone one comes out as a valid \u escape.
const JSON_SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A JSON string literal, with its quotes. */
export function jsonString(s: string): string {
  return JSON_SPECIAL.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

// ---- XML ----

// XML 1.0 cannot carry most C0 controls at all, not even as references: they become U+FFFD.
// CR is written as a reference because parsers would otherwise normalize it to LF.
const XML_TEXT_SPECIAL = /[&<>\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const XML_TEXT_SPECIAL_ALL = /[&<>\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
// In attributes, whitespace must be referenced too or it is normalized to spaces.
const XML_ATTR_SPECIAL = /[&<>"'\r\n\t\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const XML_ATTR_SPECIAL_ALL = /[&<>"'\r\n\t\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
  '\n': '&#10;',
  '\t': '&#9;',
};

function xmlEscapeChar(c: string): string {
  return XML_ESCAPES[c] ?? '\ufffd';
}

/** Character data of an XML element. */
export function escapeXmlText(s: string): string {
  return XML_TEXT_SPECIAL.test(s) ? s.replace(XML_TEXT_SPECIAL_ALL, xmlEscapeChar) : s;
}

/** An XML attribute value (inside double quotes). */
export function escapeXmlAttribute(s: string): string {
  return XML_ATTR_SPECIAL.test(s) ? s.replace(XML_ATTR_SPECIAL_ALL, xmlEscapeChar) : s;
}

// ---- HTML ----

const HTML_SPECIAL = /[&<>"'\u0000]/;
const HTML_SPECIAL_ALL = /[&<>"'\u0000]/g;
const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '\u0000': '\ufffd',
};

function htmlEscapeChar(c: string): string {
  return HTML_ESCAPES[c]!;
}

/** HTML text or a quoted attribute value: safe in both. */
export function escapeHtml(s: string): string {
  return HTML_SPECIAL.test(s) ? s.replace(HTML_SPECIAL_ALL, htmlEscapeChar) : s;
}

// ---- CSV ----

const CSV_SPECIAL = /[",\r\n]/;
const CSV_QUOTE_ALL = /"/g;

/** A CSV field (RFC 4180): quoted, with doubled quotes, only when it must be. */
export function csvField(s: string): string {
  return CSV_SPECIAL.test(s) ? '"' + s.replace(CSV_QUOTE_ALL, '""') + '"' : s;
}
