/**
 * cloud_a's maker capability: the built-in planner (reading the instances first when the request names
 * one by its Name tag), or the model with cloud_a's step schema, rules and current instances and buckets.
 */
import type { MakerCapability } from '../../core/capabilities.js';
import { cloudAMakerPrompt } from './maker-prompt.js';
import { cloudANeeds, instanceLookupPlan, instancesOf, planCloudA, type CloudAInstance } from './planner.js';

export const cloudAMaker: MakerCapability = {
  async prepare(request, { read, builtin, destroyer, onPhase }) {
    if (builtin) {
      const needs = cloudANeeds(request);
      let instances: CloudAInstance[] | undefined;
      if (needs.instancesNamed) {
        onPhase?.('reading the cloud_a instances');
        instances = instancesOf((await read(instanceLookupPlan(needs.instancesNamed, needs.region)))[0]);
      }
      return { catalogue: {}, defaults: {}, target: { system: '', builtin: () => planCloudA(request, instances) } };
    }
    onPhase?.('reading the cloud_a instances and buckets');
    const reads: [string, string[], (data: unknown) => unknown[]][] = [
      ['instances', ['aws', 'ec2', 'describe-instances'], (d) => instancesOf(d)],
      ['buckets', ['aws', 's3api', 'list-buckets'], (d) => (d as { Buckets?: unknown[] } | null)?.Buckets ?? []],
    ];
    // The model can still plan (discovery first) when a read fails; it is told why the data is missing.
    const current = Object.fromEntries(
      await Promise.all(
        reads.map(async ([key, args, pick]) => {
          try {
            const [data] = await read({ version: 1, provider: 'cloud_a', commands: [{ args, reason: `read the ${key}` }] });
            return [key, pick(data)] as const;
          } catch (err) {
            return [key, `(could not be read: ${(err as Error).message})`] as const;
          }
        }),
      ),
    );
    return { catalogue: {}, defaults: {}, target: { system: cloudAMakerPrompt({ destroyer, current }), builtin: () => planCloudA(request) } };
  },
};
