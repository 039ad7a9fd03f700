/**
 * Runs a command against a fake in its `slow` mode until the fake is holding one of its requests, with a
 * longer --timeout each time: on a busy machine a short deadline can pass before the CLI has even sent
 * its request, and then the run proves nothing about a slow server. Returns the run that reached it.
 */
import type { JsonFake } from '../../emulator/fakes/json-fake.js';
import type { CliResult } from './cli.js';

export async function runUntilHeld(fake: JsonFake, run: (timeoutArgs: string[]) => Promise<CliResult>): Promise<CliResult> {
  let last: CliResult | undefined;
  for (const seconds of [3, 15, 60]) {
    const before = fake.requests().length;
    last = await run(['--timeout', String(seconds)]);
    if (fake.requests().length > before) return last;
  }
  throw new Error(`the command never reached the fake:\n${last?.stderr}`);
}
