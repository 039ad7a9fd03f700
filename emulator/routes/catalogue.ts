/** Read-only catalogue routes: types, availability, locations, images, periods, balance. */
import { badRequest, json, notFound } from '../http.js';
import type { Ctx, RouteDef } from '../router.js';
import {
  AVAILABILITY,
  CLUSTER_AVAILABILITY,
  CLUSTER_IMAGES,
  CLUSTER_TYPES,
  CONTAINER_TYPES,
  IMAGES,
  INSTANCE_TYPES,
  LOCATIONS,
  LOCATION_CODES,
  LONG_TERM_PERIODS,
  SERVERLESS_COMPUTE,
  SPOT_AVAILABILITY,
  VOLUME_TYPES,
  clusterTypeWire,
  containerTypeWire,
  findClusterType,
  findInstanceType,
  imageWire,
  instanceTypeWire,
  normCurrency,
  supportedImages,
  volumeTypeWire,
} from '../seed.js';

const currency = (ctx: Ctx) => normCurrency(ctx.query.get('currency'));

/** `is_spot` (GO) or `isSpot` (PY, SPEC23). */
function spotQuery(ctx: Ctx): boolean {
  const v = ctx.query.get('is_spot') ?? ctx.query.get('isSpot');
  return v === 'true' || v === '1';
}

/** `location_code` (GO, PY) or `locationCode` (SPEC23); validated when given. */
function locationQuery(ctx: Ctx): string | undefined {
  const v = ctx.query.get('location_code') ?? ctx.query.get('locationCode') ?? undefined;
  if (v !== undefined && v !== '' && !LOCATION_CODES.includes(v)) throw badRequest(`Invalid location code: ${v}`);
  return v || undefined;
}

function availabilityList(table: Record<string, string[]>, location: string | undefined, says?: (type: string, location: string, table: boolean) => boolean) {
  return LOCATION_CODES.filter((l) => !location || l === location).map((l) => {
    const listed = table[l] ?? [];
    // The table's order, less what the capacity switch took away, plus what it added.
    const extra = says ? INSTANCE_TYPES.map((t) => t.instance_type).filter((t) => !listed.includes(t) && says(t, l, false)) : [];
    return { location_code: l, availabilities: [...listed.filter((t) => !says || says(t, l, true)), ...extra] };
  });
}

function instanceTypeAvailable(ctx: Ctx) {
  const type = ctx.params.type;
  if (!findInstanceType(type)) throw notFound(`Invalid instance type: ${type}`);
  const location = locationQuery(ctx);
  const spot = spotQuery(ctx);
  const table = spot ? SPOT_AVAILABILITY : AVAILABILITY;
  const says = (l: string) => ctx.store.capacity.checkSays(type, l, spot, (table[l] ?? []).includes(type));
  return json(200, location ? says(location) : LOCATION_CODES.some(says));
}

function clusterTypeAvailable(ctx: Ctx) {
  const type = ctx.params.type;
  if (!findClusterType(type)) throw notFound(`Invalid cluster type: ${type}`);
  const location = locationQuery(ctx);
  const ok = location
    ? (CLUSTER_AVAILABILITY[location] ?? []).includes(type)
    : LOCATION_CODES.some((l) => (CLUSTER_AVAILABILITY[l] ?? []).includes(type));
  return json(200, ok);
}

function images(ctx: Ctx) {
  const typeName = ctx.query.get('instance_type');
  if (!typeName) return json(200, IMAGES.map(imageWire));
  const t = findInstanceType(typeName);
  if (!t) throw badRequest(`Invalid instance type: ${typeName}`);
  return json(200, supportedImages(t).map(imageWire));
}

function clusterImages(ctx: Ctx) {
  const typeName = ctx.query.get('instance_type') ?? ctx.query.get('cluster_type');
  if (typeName && !findClusterType(typeName)) throw badRequest(`Invalid cluster type: ${typeName}`);
  return json(200, CLUSTER_IMAGES.map(imageWire));
}

function priceHistory(ctx: Ctx) {
  const cur = currency(ctx);
  const months = Math.min(Math.max(Number(ctx.query.get('num_of_months') ?? 1) || 1, 1), 12);
  const out: Record<string, unknown[]> = {};
  const day = 86_400_000;
  const start = Date.UTC(2026, 0, 1);
  for (const t of INSTANCE_TYPES) {
    const fixed = Number(instanceTypeWire(t, cur).price_per_hour);
    out[t.instance_type] = Array.from({ length: months * 4 }, (_, i) => ({
      date: new Date(start + i * 7 * day).toISOString(),
      fixed_price_per_hour: fixed,
      dynamic_price_per_hour: Math.round(fixed * (0.8 + ((i * 7) % 10) / 50) * 100) / 100,
      currency: cur,
    }));
  }
  return json(200, out);
}

export const catalogueRoutes: RouteDef[] = [
  { method: 'GET', path: '/v1/balance', handler: (ctx) => json(200, { amount: Math.round(ctx.store.data.balance * 100) / 100, currency: 'usd' }) },
  { method: 'GET', path: '/v1/instance-types', handler: (ctx) => json(200, INSTANCE_TYPES.map((t) => instanceTypeWire(t, currency(ctx)))) },
  { method: 'GET', path: '/v1/instance-types/price-history', handler: priceHistory },
  {
    method: 'GET',
    path: '/v1/instance-types/{type}',
    handler: (ctx) => {
      const t = findInstanceType(ctx.params.type);
      if (!t) throw notFound(`Invalid instance type: ${ctx.params.type}`);
      return json(200, instanceTypeWire(t, currency(ctx)));
    },
  },
  {
    method: 'GET',
    path: '/v1/instance-availability',
    handler: (ctx) => {
      const spot = spotQuery(ctx);
      return json(200, availabilityList(spot ? SPOT_AVAILABILITY : AVAILABILITY, locationQuery(ctx), (t, l, table) => ctx.store.capacity.checkSays(t, l, spot, table)));
    },
  },
  { method: 'GET', path: '/v1/instance-availability/{type}', handler: instanceTypeAvailable },
  // Deprecated SPEC23 spelling, still answered.
  { method: 'GET', path: '/v1/instances/availability/{type}', handler: instanceTypeAvailable },
  { method: 'GET', path: '/v1/locations', handler: () => json(200, LOCATIONS.map((l) => ({ ...l }))) },
  { method: 'GET', path: '/v1/images', handler: images },
  { method: 'GET', path: '/v1/images/cluster', handler: clusterImages },
  { method: 'GET', path: '/v1/cluster-types', handler: (ctx) => json(200, CLUSTER_TYPES.map((t) => clusterTypeWire(t, currency(ctx)))) },
  { method: 'GET', path: '/v1/cluster-availability', handler: (ctx) => json(200, availabilityList(CLUSTER_AVAILABILITY, locationQuery(ctx))) },
  { method: 'GET', path: '/v1/cluster-availability/{type}', handler: clusterTypeAvailable },
  { method: 'GET', path: '/v1/container-types', handler: (ctx) => json(200, CONTAINER_TYPES.map((c) => containerTypeWire(c, currency(ctx)))) },
  { method: 'GET', path: '/v1/serverless-compute-resources', handler: () => json(200, SERVERLESS_COMPUTE.map((c) => ({ ...c }))) },
  { method: 'GET', path: '/v1/volume-types', handler: (ctx) => json(200, VOLUME_TYPES.map((v) => volumeTypeWire(v, currency(ctx)))) },
  { method: 'GET', path: '/v1/long-term/periods', handler: () => json(200, LONG_TERM_PERIODS.all) },
  { method: 'GET', path: '/v1/long-term/periods/instances', handler: () => json(200, LONG_TERM_PERIODS.instances) },
  { method: 'GET', path: '/v1/long-term/periods/clusters', handler: () => json(200, LONG_TERM_PERIODS.clusters) },
];
