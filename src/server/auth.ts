/**
 * Credentials for writes (a bearer token, or an HTTP Basic user and password) and for reads (a
 * bearer token), turned into the `authorizeUpdate` / `authorizeQuery` hooks of ServerConfig.
 *
 * Secrets are compared as SHA-256 digests with crypto.timingSafeEqual: the digests have a fixed
 * length, so neither the time taken nor an early length check tells an attacker how much of a
 * guess was right. No message built here ever contains what the client sent or what is expected.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthorizationInput, ServerConfig } from './config.js';
import { HttpError } from './http-error.js';

export const REALM = 'quiver';

export interface AccessSettings {
  /** Writes need `Authorization: Bearer <updateToken>`. */
  updateToken?: string;
  /** Writes need `Authorization: Basic` with this user and `updatePassword`. */
  updateUser?: string;
  updatePassword?: string;
  /** Queries need `Authorization: Bearer <queryToken>`. */
  queryToken?: string;
}

/** A check of the Authorization header: true when it carries one of the accepted credentials. */
export interface CredentialCheck {
  accepts(authorization: string | undefined): boolean;
  /** The challenges of a 401 (one per scheme), for WWW-Authenticate. */
  challenges: string[];
}

/** A 401 that tells the client which schemes it may use. */
export class UnauthorizedError extends HttpError {
  constructor(message: string, challenges: string[]) {
    super(401, message, { 'www-authenticate': challenges.join(', ') });
    this.name = 'UnauthorizedError';
  }
}

/**
 * The hooks for a set of credentials; a hook is left out when its kind of request stays open.
 *
 * Whoever may write may also read: update credentials are accepted for queries too. When only a
 * query token is set, writes need it as well, so that a server closed for reading is never left
 * open for writing.
 */
export function accessHooks(settings: AccessSettings): Pick<ServerConfig, 'authorizeUpdate' | 'authorizeQuery'> {
  validateAccessSettings(settings);
  const writers = anyOf([
    settings.updateToken !== undefined ? bearerCheck(settings.updateToken) : undefined,
    settings.updateUser !== undefined ? basicCheck(settings.updateUser, settings.updatePassword!) : undefined,
  ]);
  const readers = settings.queryToken !== undefined ? bearerCheck(settings.queryToken) : undefined;
  const updateCheck = writers ?? readers;
  const queryCheck = readers && anyOf([readers, writers]);
  return {
    authorizeUpdate: updateCheck && authorizer(updateCheck, 'updates on this server need credentials'),
    authorizeQuery: queryCheck && authorizer(queryCheck, 'queries on this server need credentials'),
  };
}

/** Throws a TypeError (the CLI turns it into a usage error) for settings that cannot work. */
export function validateAccessSettings(settings: AccessSettings): void {
  const { updateToken, updateUser, updatePassword, queryToken } = settings;
  for (const token of [updateToken, queryToken]) {
    if (token !== undefined && !/^\S+$/.test(token)) throw new TypeError('a token must be non-empty and without spaces');
  }
  if ((updateUser === undefined) !== (updatePassword === undefined)) {
    throw new TypeError('--update-user and --update-password go together');
  }
  if (updateUser !== undefined && (updateUser === '' || updatePassword === '')) {
    throw new TypeError('the update user and password must not be empty');
  }
  if (updateUser?.includes(':')) throw new TypeError('an HTTP Basic user name cannot contain a colon');
}

function authorizer(check: CredentialCheck, message: string): (request: AuthorizationInput) => void {
  return (request) => {
    const header = request.headers['authorization'];
    if (!check.accepts(Array.isArray(header) ? header[0] : header)) {
      const hint = header === undefined ? 'none were sent' : 'the credentials sent are not valid';
      throw new UnauthorizedError(`${message}; ${hint}`, check.challenges);
    }
  };
}

export function bearerCheck(token: string): CredentialCheck {
  const expected = digest(token);
  return {
    accepts: (authorization) => {
      const sent = credentialsOf(authorization, 'bearer');
      return sent !== undefined && sameDigest(digest(sent), expected);
    },
    challenges: [`Bearer realm="${REALM}"`],
  };
}

export function basicCheck(user: string, password: string): CredentialCheck {
  const expectedUser = digest(user);
  const expectedPassword = digest(password);
  return {
    accepts: (authorization) => {
      const encoded = credentialsOf(authorization, 'basic');
      if (encoded === undefined) return false;
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return false;
      // Both halves are always compared, so a right user name with a wrong password takes as long
      // as a wrong user name.
      const userMatches = sameDigest(digest(decoded.slice(0, colon)), expectedUser);
      const passwordMatches = sameDigest(digest(decoded.slice(colon + 1)), expectedPassword);
      return userMatches && passwordMatches;
    },
    challenges: [`Basic realm="${REALM}", charset="UTF-8"`],
  };
}

function anyOf(checks: (CredentialCheck | undefined)[]): CredentialCheck | undefined {
  const present = checks.filter((check): check is CredentialCheck => check !== undefined);
  if (present.length <= 1) return present[0];
  return {
    // Every check runs, so which scheme matched does not show in the timing.
    accepts: (authorization) => present.map((check) => check.accepts(authorization)).includes(true),
    challenges: present.flatMap((check) => check.challenges),
  };
}

/** The credentials after `<scheme> ` in an Authorization header (the scheme is case-insensitive). */
function credentialsOf(authorization: string | undefined, scheme: string): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(authorization);
  if (!match || match[1]!.toLowerCase() !== scheme) return undefined;
  return match[2];
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function sameDigest(a: Buffer, b: Buffer): boolean {
  return timingSafeEqual(a, b);
}
