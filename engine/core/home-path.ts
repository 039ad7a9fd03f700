/** `~` and `~/x` under `home`; other paths resolved against the working directory, as a shell would. */
import { join, resolve } from 'node:path';

export function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : resolve(p);
}
