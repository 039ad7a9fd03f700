/**
 * What every auto-stop run takes (`autostop check`, its MCP timer, `autostop resume`): a plan backend that
 * carries the config (the policy's limits, the SSH settings), the home its journals and locks live in,
 * where progress goes and a clock.
 */
import type { Config } from '../../schemas/config.js';
import type { PlanBackend } from '../apply/index.js';

export interface AutostopBackend extends PlanBackend {
  config: Config;
}

export interface AutostopRunOptions {
  /** Home directory: run journals, the run's lock and what it sent. */
  home: string;
  /** Progress lines (stderr in the CLI). */
  onProgress?: (text: string) => void;
  /** Clock in epoch ms (tests). */
  now?: () => number;
}
