/**
 * What is known of hibernating a gpucloud instance, in one place (docs/autostop.md says where each fact
 * comes from):
 *
 * - The action: `PUT /v1/instances {"action": "hibernate"}` releases the machine and keeps the volumes;
 *   `{"action": "restore"}` brings the instance back (Python SDK and the 2023 spec: statuses
 *   `starting_hibernation` → `hibernating` → `restoring` → `running`).
 * - Billing: the official CLI's confirmation says hibernating "saves its state and stops billing"; the
 *   volumes stay, and a volume bills by size until it is deleted, attached or not. So while hibernated the
 *   machine's price leaves the bill and the volumes' prices stay in it. No price of its own for a
 *   hibernated instance is published anywhere.
 * - Which instances cannot: nothing documents hibernating a spot instance (its machine can be reclaimed
 *   at any time, and its volumes follow `on_spot_discontinue`), so a spot instance is taken not to; a
 *   long-term contract is paid up front, so hibernating it saves nothing. Both are said at plan time.
 */

/** The statuses of an instance on its way into hibernation, hibernated, and on its way back. */
export const HIBERNATION_STATUSES = { entering: 'starting_hibernation', hibernated: 'hibernating', leaving: 'restoring' } as const;

/** Why the instance a create body describes cannot hibernate (or gains nothing by it), or undefined. */
export function hibernationBlocker(body: Record<string, unknown>): string | undefined {
  if (body.is_spot === true || body.contract === 'SPOT') {
    return 'a spot instance cannot hibernate on gpucloud (the API documents hibernation for on-demand instances only; a spot machine can be reclaimed and its volumes follow on_spot_discontinue)';
  }
  if (body.contract === 'LONG_TERM') return 'a long-term instance is paid up front: hibernating it would save nothing';
  return undefined;
}
