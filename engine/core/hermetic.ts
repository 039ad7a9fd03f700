/**
 * `--sandbox` is hermetic (DESIGN §8): nothing leaves the machine and no real cloud CLI runs. Decided
 * where a session connects something, never per question: a provider connects to its local stand-in or
 * refuses (engine/producers/sandbox/sandbox.ts), and an AI endpoint must be on this machine
 * (engine/producers/ai/resolve.ts). The refusal names what was refused and how to use it for real.
 */
import { AssistantError, ExitCode } from './errors.js';

/** Refused under --sandbox: it would reach something real. Nothing was sent (exit 3). */
export class NotInSandbox extends AssistantError {
  constructor(what: string, hint: string) {
    super('not_in_sandbox', `${what}; --sandbox sends nothing off this machine and runs no real cloud CLI`, ExitCode.refused, { hint });
  }
}

/** localhost, 127.0.0.0/8, ::1 (brackets or not). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Whether a URL points at this machine (an unparsable one does not). */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
