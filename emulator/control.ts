/**
 * /__emulator/* control endpoints (unauthenticated, never rate-limited, not recorded), for tests that run
 * the CLI as a separate process: faults, requests, stats, reset, balance, health.
 */
import { errorReply, json, type Reply } from './http.js';
import { CAPACITY_MODES, type CapacitySetting } from './capacity.js';
import type { FaultSpec } from './types.js';

/** What the control endpoints act on: the emulator server, seen from here (it imports this file). */
export interface Controllable {
  readonly url: string;
  readonly faults: { size(): number; clear(): void };
  addFault(spec: FaultSpec): void;
  requests(): unknown;
  stats(): unknown;
  reset(): void;
  setBalance(amount: number): void;
  setCapacity(setting: CapacitySetting): void;
}

type ControlHandler = (emu: Controllable, body: unknown) => Reply;

const CONTROL: Record<string, ControlHandler> = {
  'GET /__emulator/health': (emu) => json(200, { ok: true, url: emu.url }),
  'POST /__emulator/faults': (emu, body) => {
    const specs = (Array.isArray(body) ? body : [body]) as FaultSpec[];
    for (const s of specs) {
      if (typeof s !== 'object' || s === null || typeof s.path !== 'string' || !s.path)
        return errorReply(400, 'invalid_request', 'each fault needs a path');
    }
    for (const s of specs) emu.addFault(s);
    return json(200, { ok: true, faults: emu.faults.size() });
  },
  'DELETE /__emulator/faults': (emu) => {
    emu.faults.clear();
    return json(200, { ok: true });
  },
  'GET /__emulator/requests': (emu) => json(200, emu.requests()),
  'GET /__emulator/stats': (emu) => json(200, emu.stats()),
  'POST /__emulator/reset': (emu) => {
    emu.reset();
    return json(200, { ok: true });
  },
  // {instance_type, location_code, is_spot?, mode?: available|sold_out|lost|no_capacity} (or a list); no mode: back to the table.
  'POST /__emulator/capacity': (emu, body) => {
    const specs = (Array.isArray(body) ? body : [body]) as CapacitySetting[];
    for (const s of specs) {
      if (typeof s !== 'object' || s === null || typeof s.instance_type !== 'string' || typeof s.location_code !== 'string')
        return errorReply(400, 'invalid_request', 'each capacity setting needs instance_type and location_code');
      if (s.mode !== undefined && !(CAPACITY_MODES as readonly string[]).includes(s.mode)) return errorReply(400, 'invalid_request', `mode must be one of ${CAPACITY_MODES.join(', ')}`);
    }
    for (const s of specs) emu.setCapacity(s);
    return json(200, { ok: true });
  },
  'POST /__emulator/balance': (emu, body) => {
    const amount = (body as { amount?: unknown } | undefined)?.amount;
    if (typeof amount !== 'number' || !Number.isFinite(amount)) return errorReply(400, 'invalid_request', 'amount must be a number');
    emu.setBalance(amount);
    return json(200, { amount, currency: 'usd' });
  },
};

export async function handleControl(emu: Controllable, method: string, path: string, raw: string): Promise<Reply> {
  const handler = CONTROL[`${method} ${path}`];
  if (!handler) return errorReply(404, 'not_found', `Cannot ${method} ${path}`);
  let body: unknown;
  try {
    body = raw.trim() ? (JSON.parse(raw) as unknown) : undefined;
  } catch {
    return errorReply(400, 'invalid_request', 'Malformed JSON in request body');
  }
  return handler(emu, body);
}
