/**
 * cloud_a's `machines` capability (engine/core/capabilities.ts): EC2 instances in a security group of
 * their own, root reachable over SSH with the caller's key (cloud-init user data). A light module: the
 * compiler (./machines-compile.ts) loads when machines are compiled.
 */
import type { MachinesCapability } from '../../core/capabilities.js';

export const cloudAMachines: MachinesCapability = {
  about: 'EC2 instances in a security group of their own, open to --ssh-from',
  defaults: {
    instanceType: 't3.small (2 vCPUs, 2 GiB)',
    location: 'the region: the aws CLI\'s own',
    image: 'Canonical\'s newest Ubuntu LTS server AMI for the type\'s architecture',
  },
  needsCallerCidr: true,
  needsSshPublicKey: true,
  async compile(req, ctx) {
    const { compileCloudAMachines } = await import('./machines-compile.js');
    return compileCloudAMachines(req, ctx);
  },
};
