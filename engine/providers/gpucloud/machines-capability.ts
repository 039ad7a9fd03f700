/**
 * gpucloud's `machines` capability (engine/core/capabilities.ts): CPU instances with an Ubuntu image,
 * the cheapest that fits where it is available. A light module: the compiler (./machines-compile.ts)
 * loads when machines are compiled.
 */
import type { MachinesCapability } from '../../core/capabilities.js';

export const gpucloudMachines: MachinesCapability = {
  about: 'gpucloud instances (the project\'s default SSH key; no firewall)',
  defaults: {
    instanceType: 'the cheapest CPU type available with the size asked for (kubeadm: 2 cores, 2 GB)',
    location: 'gpucloud.default_location, else where the type is available',
    image: 'the first Ubuntu image that runs on the type',
  },
  async compile(req, ctx) {
    const { compileGpucloudMachines } = await import('./machines-compile.js');
    return compileGpucloudMachines(req, ctx);
  },
};
