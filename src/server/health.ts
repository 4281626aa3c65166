/**
 * {base}/health for load balancers and orchestrators: 200 while the store is open and writable,
 * 503 otherwise. The body is `ok` (or `unavailable`) for the simplest probes, and the service's
 * whole answer in JSON for clients that ask for application/json.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceHealth, SparqlService } from '../service/index.js';
import { qualityOf, parseAccept } from './media-type.js';

/** What a service without a health check is taken to be: it answers, so it is up. */
const ASSUMED_HEALTHY: ServiceHealth = { status: 'ok', store: 'open', writable: true };

export async function answerHealth(service: SparqlService, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const health = await serviceHealth(service);
  reply
    .code(health.status === 'ok' ? 200 : 503)
    .header('cache-control', 'no-store')
    .header('vary', 'Accept');
  if (wantsJson(request.headers.accept)) return reply.type('application/json; charset=utf-8').send(JSON.stringify(health) + '\n');
  return reply.type('text/plain; charset=utf-8').send(`${health.status}\n`);
}

async function serviceHealth(service: SparqlService): Promise<ServiceHealth> {
  if (!service.health) return ASSUMED_HEALTHY;
  try {
    return await service.health();
  } catch {
    return { status: 'unavailable', store: 'closed', writable: false };
  }
}

function wantsJson(accept: string | undefined): boolean {
  const ranges = parseAccept(accept);
  return ranges.some((range) => range.type === 'application' && range.subtype === 'json') && qualityOf('application/json', ranges) > 0;
}
