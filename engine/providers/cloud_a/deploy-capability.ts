/**
 * cloud_a's `deploy` capability (engine/core/capabilities.ts): its container service (ECS on Fargate) or an
 * EC2 VM that clones and starts the repository, compiled into `aws` steps without reading anything
 * first. A light module: the compiler (./deploy-compile.ts) loads when a deploy compiles.
 */
import type { DeployCapability } from '../../core/capabilities.js';

export const cloudADeploy: DeployCapability = {
  targets: [
    { name: 'container', about: 'a service of its container service (ECS on Fargate)', runsSource: false },
    { name: 'vm', about: 'an EC2 instance whose user data clones and starts the repository', runsSource: true },
  ],
  defaultTarget: () => 'container',
  // --ami: the VM's image (default: the current Ubuntu 24.04 from SSM).
  flags: ['ami'],
  async compile(req) {
    const { compileCloudA } = await import('./deploy-compile.js');
    const { options, location, target, ...request } = req;
    // --location is the AWS region here (the CLI's own default when absent).
    return compileCloudA({ ...request, target: 'container', location: '', awsTarget: target === 'vm' ? 'vm' : 'container', ami: options.ami, region: location });
  },
};
