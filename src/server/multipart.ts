/**
 * multipart/form-data bodies (RFC 7578), as the Graph Store Protocol allows for POST: each part is
 * one RDF document with its own Content-Type. Small and strict: the whole body is in memory already
 * (Fastify's body limit bounds it).
 */
import { ProtocolError } from '../errors.js';
import type { MediaType } from './media-type.js';
import { parseMediaType } from './media-type.js';

export interface BodyPart {
  type: MediaType | undefined;
  text: string;
}

export function isMultipart(type: MediaType | undefined): boolean {
  return type?.essence === 'multipart/form-data';
}

export function parseMultipart(text: string, type: MediaType): BodyPart[] {
  const boundary = type.params['boundary'];
  if (!boundary) throw new ProtocolError('a multipart/form-data body needs a boundary parameter');
  const delimiter = `--${boundary}`;
  const sections = text.split(delimiter);
  // Before the first delimiter: a preamble; after the last ("--"): an epilogue.
  const closing = sections.findIndex((section, i) => i > 0 && section.startsWith('--'));
  if (closing < 0) throw new ProtocolError('the multipart body has no closing boundary');
  return sections.slice(1, closing).map(parsePart);
}

function parsePart(section: string): BodyPart {
  const content = section.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
  const split = /\r?\n\r?\n/.exec(content);
  const head = split ? content.slice(0, split.index) : content;
  const text = split ? content.slice(split.index + split[0].length) : '';
  let contentType: string | undefined;
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-type') contentType = line.slice(colon + 1).trim();
  }
  return { type: parseMediaType(contentType), text };
}
