/**
 * Profiles one MCP server under the floor bench's load (issue 40 item 3): this process serves, the
 * agents and the emulator run in processes of their own, so a `--cpu-prof` of this process is the
 * server's alone. The profiler (node:inspector, not --cpu-prof, which the forked agents and emulator
 * would inherit) runs for the measured calls only, after a warm-up measure (JIT, connections, token);
 * read the profile with bench/profile-summary.ts:
 *
 *   node dist/bench/mcp-profile.js ours 8 3000 /tmp/ours.cpuprofile
 *   node dist/bench/mcp-profile.js floor 8 3000 /tmp/floor.cpuprofile
 *   node dist/bench/profile-summary.js /tmp/ours.cpuprofile 3000
 *
 * Prints the server CPU per call of the profiled window (the profiler's own cost included).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { startEmulatorProcess } from './emulator-process.js';
import { THIS_BUILD } from './fixtures.js';
import { floorServer } from './mcp-floor.js';
import { loadLine, measureMcp, serverOf } from './mcp.js';

const [which = 'ours', agentsArg = '8', callsArg = '3000', out = `/tmp/mcp-${which}.cpuprofile`] = process.argv.slice(2);
if (which !== 'ours' && which !== 'floor') throw new Error('usage: mcp-profile.js ours|floor [agents] [calls] [profile file]');
const agents = Number(agentsArg);
const calls = Number(callsArg);

const emu = await startEmulatorProcess({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
try {
  const server = which === 'floor' ? await floorServer(emu) : await serverOf(THIS_BUILD, emu, true);
  try {
    await measureMcp(emu, server.url, agents, Math.max(200, calls / 10));
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const m = await measureMcp(emu, server.url, agents, calls);
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
    console.log(`${which}, ${agents} agent(s), ${calls} calls: server ${m.cpu.server.toFixed(0)} µs per call, ${m.stats.perSecond.toFixed(0)} calls/s; ${loadLine()}; profile: ${out}`);
  } finally {
    await server.close();
  }
} finally {
  await emu.close();
}
