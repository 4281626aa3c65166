/**
 * Talking to the SPARQL endpoints with fetch: form-encoded POSTs (no length limit, no caching),
 * credentials as an Authorization header, and failures turned into messages with their position.
 */

export interface Credentials {
  token?: string;
  user?: string;
  password?: string;
}

/** A request the server refused or could not carry out. */
export class RequestFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** 1-based, when the server said where a syntax error is. */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** Syntax errors end in "(line L, column C)" (src/errors.ts). */
const POSITION = /\(line (\d+), column (\d+)\)\s*$/;

export function authorizationHeader(credentials: Credentials | undefined): string | undefined {
  if (credentials?.token) return `Bearer ${credentials.token}`;
  if (credentials?.user) return `Basic ${base64(`${credentials.user}:${credentials.password ?? ''}`)}`;
  return undefined;
}

function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export async function postForm(url: string, fields: Record<string, string>, accept: string, credentials?: Credentials): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    accept,
  };
  const authorization = authorizationHeader(credentials);
  if (authorization !== undefined) headers['authorization'] = authorization;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(fields), cache: 'no-store' });
  } catch (error) {
    throw new RequestFailure(`the server could not be reached (${(error as Error).message})`, 0);
  }
  if (!response.ok) throw await failureOf(response);
  return response;
}

async function failureOf(response: Response): Promise<RequestFailure> {
  const text = (await response.text()).trim();
  const message = text === '' ? `${response.status} ${response.statusText}` : text;
  const position = POSITION.exec(message);
  return position === null
    ? new RequestFailure(message, response.status)
    : new RequestFailure(message, response.status, Number(position[1]), Number(position[2]));
}
