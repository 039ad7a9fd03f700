/**
 * The machine onboarding works on: operating system, architecture, the package managers on PATH and
 * whether we are root. Everything is injectable (`--platform linux/arm64`, the environment's PATH), so a
 * plan can be previewed for another machine and tests choose the architecture.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { UsageError } from '../../core/errors.js';

export const OS_NAMES = ['linux', 'darwin', 'windows'] as const;
export const ARCH_NAMES = ['x64', 'arm64'] as const;
export type OsName = (typeof OS_NAMES)[number];
export type ArchName = (typeof ARCH_NAMES)[number];

/** Package managers a recipe can use, in the order they are looked for. */
export const PACKAGE_MANAGERS = ['apt', 'dnf', 'brew', 'winget', 'npm', 'pipx', 'pip'] as const;
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/** The executable each package manager is found by. */
const MANAGER_COMMAND: Record<PackageManager, string[]> = {
  apt: ['apt-get'],
  dnf: ['dnf'],
  brew: ['brew'],
  winget: ['winget'],
  npm: ['npm'],
  pipx: ['pipx'],
  pip: ['pip3', 'pip'],
};

export interface Platform {
  os: OsName;
  arch: ArchName;
  /** Package managers found on PATH (for the platform's OS only). */
  managers: PackageManager[];
  /** Running as root (uid 0): system package managers need no sudo. */
  root: boolean;
  /** `sudo` is on PATH (needed for apt/dnf when not root). */
  sudo: boolean;
  /** Whether `os`/`arch` came from --platform rather than from this machine. */
  injected: boolean;
}

/** `linux/arm64`, `darwin/x64`, `windows/amd64` (Go and Docker spellings accepted). */
export function parsePlatform(text: string): { os: OsName; arch: ArchName } {
  const [rawOs, rawArch, extra] = text.trim().toLowerCase().split('/');
  const os = ({ linux: 'linux', darwin: 'darwin', macos: 'darwin', mac: 'darwin', windows: 'windows', win32: 'windows' } as Record<string, OsName>)[rawOs ?? ''];
  const arch = ({ x64: 'x64', amd64: 'x64', 'x86-64': 'x64', x86_64: 'x64', arm64: 'arm64', aarch64: 'arm64' } as Record<string, ArchName>)[rawArch ?? ''];
  if (!os || !arch || extra !== undefined) {
    throw new UsageError(`--platform must be <os>/<arch> with os linux, darwin or windows and arch x64 or arm64 (got "${text}")`, {
      hint: 'e.g. --platform linux/arm64',
    });
  }
  return { os, arch };
}

export function hostOs(platform: NodeJS.Platform = process.platform): OsName {
  if (platform === 'darwin') return 'darwin';
  if (platform === 'win32') return 'windows';
  return 'linux';
}

export function hostArch(arch: string = process.arch): ArchName {
  return arch === 'arm64' ? 'arm64' : 'x64';
}

/**
 * The platform to plan for: `--platform` when given, else this machine. Package managers and sudo are
 * always looked up on the given PATH (an injected platform with a stand-in PATH is how tests run).
 */
export function detectPlatform(env: Record<string, string | undefined>, injected?: string): Platform {
  const chosen = injected ? parsePlatform(injected) : { os: hostOs(), arch: hostArch() };
  const managers = PACKAGE_MANAGERS.filter((m) => managerOs(m, chosen.os) && MANAGER_COMMAND[m].some((c) => findOnPath(c, env)));
  const root = typeof process.getuid === 'function' && process.getuid() === 0 && chosen.os !== 'windows';
  return { ...chosen, managers, root, sudo: Boolean(findOnPath('sudo', env)), injected: Boolean(injected) };
}

/** Which operating systems a package manager belongs to (apt on a Mac is not a thing to plan with). */
function managerOs(m: PackageManager, os: OsName): boolean {
  if (m === 'apt' || m === 'dnf') return os === 'linux';
  if (m === 'winget') return os === 'windows';
  if (m === 'brew') return os === 'darwin' || os === 'linux';
  return true;
}

/** The command a package manager runs as (`pip3` when it exists, else `pip`). */
export function managerCommand(m: PackageManager, env: Record<string, string | undefined>): string {
  return MANAGER_COMMAND[m].find((c) => findOnPath(c, env)) ?? MANAGER_COMMAND[m][0]!;
}

/** The full path of an executable on PATH (PATHEXT on Windows), or undefined. */
export function findOnPath(command: string, env: Record<string, string | undefined>): string | undefined {
  const path = env.PATH ?? env.Path ?? '';
  const windows = process.platform === 'win32';
  const exts = windows ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean) : [''];
  for (const dir of path.split(delimiter)) {
    // A relative entry (`.`, `node_modules/.bin`) would run whatever the current folder holds: a probe
    // run in a repository must not run the repository's own `terraform` or `aws`.
    if (!dir || !isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = join(dir, command + ext);
      try {
        if (!statSync(candidate).isFile()) continue;
        if (!windows) accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

export function describePlatform(p: Platform): string {
  return `${p.os}/${p.arch}${p.injected ? ' (--platform)' : ''}`;
}
