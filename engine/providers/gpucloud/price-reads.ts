/**
 * The reads a gpucloud price needs (catalogue prices, what exists now), each a GET through the executor
 * (the preview's read function, which sends a read once however often it is asked for). A read of one
 * resource that fails (it does not exist, a placeholder names it) is an answer, not an error: the price
 * that needed it is unpriced, and says why.
 */
import type { PreviewRead } from '../../core/provider.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';

export type Rec = Record<string, any>;
export type Found = { ok: true; record: Rec } | { ok: false; why: string };

export const list = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);
export const record = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);

export class PriceReads {
  constructor(private readonly read: PreviewRead) {}

  get(path: string): Promise<unknown> {
    return this.read(['gpucloud-api', 'GET', path]);
  }

  instanceTypes = () => this.get('/v1/instance-types');
  clusterTypes = () => this.get('/v1/cluster-types');
  volumeTypes = () => this.get('/v1/volume-types');
  containerTypes = () => this.get('/v1/container-types');
  serverlessCompute = () => this.get('/v1/serverless-compute-resources');
  images = () => this.get('/v1/images');
  locations = () => this.get('/v1/locations');
  balance = () => this.get('/v1/balance');

  /** The record of `kind` whose `field` is `id`, from its list (`/v1/instances`, `/v1/volumes`, `/v1/volumes/trash`). */
  async find(listPath: string, id: unknown, what: string, field = 'id'): Promise<Found> {
    if (typeof id !== 'string' || id === '') return { ok: false, why: `no ${what} ID in the request` };
    if (hasPlaceholder(id)) return { ok: false, why: `the ${what} (${id}) is only known at run time` };
    const found = list(await this.get(listPath)).find((r) => r?.[field] === id);
    return found ? { ok: true, record: found } : { ok: false, why: `${what} ${id} does not exist now` };
  }

  /** One resource by its path (a deployment, its status), or why it cannot be read. */
  async one(path: string, what: string, name: string): Promise<Found> {
    if (hasPlaceholder(name)) return { ok: false, why: `the ${what} (${name}) is only known at run time` };
    try {
      const data = record(await this.get(path));
      return data ? { ok: true, record: data } : { ok: false, why: `${what} ${name} answered no record` };
    } catch (err) {
      return { ok: false, why: `${what} ${name} cannot be read (${(err as Error).message})` };
    }
  }
}
