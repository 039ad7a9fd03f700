/**
 * gpucloud's `machines` capability (engine/core/capabilities.ts): CPU instances with an Ubuntu image,
 * the cheapest that fits where it is available. A light module: the compiler (./machines-compile.ts)
 * loads when machines are compiled.
 */
import type { MachinesCapability } from '../../core/capabilities.js';

export const gpucloudMachines: MachinesCapability = {
  about: 'gpucloud instances (the project\'s default SSH key; no firewall)',
  async compile(req, ctx) {
    const { compileGpucloudMachines } = await import('./machines-compile.js');
    return compileGpucloudMachines(req, ctx);
  },
};
