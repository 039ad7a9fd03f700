/**
 * gpucloud emulator: an in-process imitation of the GPU cloud's REST API v1 (wire format of
 * shared/reference/gpucloud-api.md) with OAuth tokens, SPEC 8 rate limits, lazy lifecycles, billing,
 * fault injection and request recording. `startEmulator()` is the entry point for tests;
 * `runEmulatorForeground()` backs `assistant gpucloud emulate`.
 */
export type { Emulator, EmulatorOptions, EmulatorStats, FaultSpec, RecordedRequest } from './types.js';
export { EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS } from './fixtures.js';
export { EMULATOR_DEFAULT_CLIENT_ID, EMULATOR_DEFAULT_CLIENT_SECRET } from './types.js';
export { runEmulatorForeground, EMULATOR_SECRET_ENV } from './main.js';
export { startEmulator } from './start.js';
export { CAPACITY_MODES, type CapacityMode, type CapacitySetting } from './capacity.js';
