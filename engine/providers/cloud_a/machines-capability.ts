/**
 * cloud_a's `machines` capability (engine/core/capabilities.ts): EC2 instances in a security group of
 * their own, root reachable over SSH with the caller's key (cloud-init user data). A light module: the
 * compiler (./machines-compile.ts) loads when machines are compiled.
 */
import type { MachinesCapability } from '../../core/capabilities.js';

export const cloudAMachines: MachinesCapability = {
  about: 'EC2 instances in a security group of their own (--location is the region)',
  needsCallerCidr: true,
  needsSshPublicKey: true,
  async compile(req, ctx) {
    const { compileCloudAMachines } = await import('./machines-compile.js');
    return compileCloudAMachines(req, ctx);
  },
};
