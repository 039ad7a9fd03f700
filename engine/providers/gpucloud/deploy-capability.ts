/**
 * gpucloud's `deploy` capability (engine/core/capabilities.ts): an instance that clones and starts the
 * repository, or a serverless container deployment of an image. A light module: the compiler
 * (./deploy-compile.ts) and its reads (./deploy-live.ts) load when a deploy compiles.
 */
import type { DeployCapability } from '../../core/capabilities.js';
import { InvalidInputError } from '../../core/errors.js';

export const gpucloudDeploy: DeployCapability = {
  targets: [
    { name: 'instance', about: 'an instance whose startup script clones and starts the repository', runsSource: true, autostop: true },
    { name: 'container', about: 'a serverless container deployment of an image', runsSource: false },
  ],
  // A repository that names a prebuilt image (or --image) is deployed as that image.
  defaultTarget: ({ image }) => (image ? 'container' : 'instance'),
  async compile(req, { read, predefined }) {
    const location = req.location ?? predefined.DEFAULT_LOCATION;
    if (req.target === 'instance' && !location) throw new InvalidInputError('missing_location', 'no location to deploy to', { hint: 'pass --location (e.g. FIN-01) or set gpucloud.default_location' });
    const [{ liveReadPlan, liveStateFrom }, { compileDeploy }] = await Promise.all([import('./deploy-live.js'), import('./deploy-compile.js')]);
    const target = req.target === 'container' ? 'container' : 'instance';
    const reads = liveReadPlan(target);
    const live = liveStateFrom(reads.keys, await read(reads.plan));
    const { options: _options, ...request } = req;
    return compileDeploy({ ...request, target, location: location ?? '' }, live);
  },
};
