/**
 * The on-instance half of auto-stop: a watcher the startup script installs, run every minute by a
 * systemd timer, that records whether the machine is in use in one small JSON file. It holds no
 * credentials and stops nothing: `assistant autostop check` reads the file over SSH (one read-only
 * command, ./template.ts) and acts through the account, from wherever the account's credentials live.
 */
import { createHash } from 'node:crypto';
import { describePolicy, policyMarker, type AutostopPolicy } from './policy.js';

/** Where the watcher writes its record (the read-only template reads exactly this file). */
export const STATE_DIR = '/var/lib/assistant-autostop';
export const STATE_FILE = `${STATE_DIR}/state.json`;
/** A GPU at this utilisation (%) or more counts as in use. */
export const BUSY_GPU_PERCENT = 5;

/**
 * The watcher (POSIX sh). In use: any GPU at BUSY_GPU_PERCENT % or more (nvidia-smi), or anyone logged
 * in (`who`: sessions with a terminal; the check's own SSH command has none). `last_activity` is the last
 * minute it saw use, or the boot when it saw none since (so an instance started again after a stop gets
 * its full idle time before it is stopped again). Times are the instance's epoch seconds: the check
 * compares `updated` with `last_activity`, both from this clock.
 */
export const WATCH_SCRIPT = `#!/bin/sh
# assistant auto-stop watcher: records once a minute whether this machine is in use.
# It stops nothing and holds no credentials; \`assistant autostop check\` reads the record over SSH.
set -u
DIR="\${ASSISTANT_AUTOSTOP_DIR:-${STATE_DIR}}"
STATE="$DIR/state.json"
mkdir -p "$DIR"
now=$(date +%s)
up=$(cut -d. -f1 /proc/uptime 2>/dev/null)
boot=$((now - \${up:-0}))
gpu=null
if command -v nvidia-smi >/dev/null 2>&1; then
  g=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null | tr -cd '0-9\\n' | grep . | sort -n | tail -n 1)
  if [ -n "$g" ]; then gpu=$g; fi
fi
logins=$(who 2>/dev/null | grep -c .)
last=$(sed -n 's/.*"last_activity":\\([0-9][0-9]*\\).*/\\1/p' "$STATE" 2>/dev/null | head -n 1)
# No record yet, or one from before this boot (started again after a stop): idle counts from the boot.
if [ -z "$last" ] || [ "$last" -lt $((boot - 5)) ] || [ "$last" -gt "$now" ]; then last=$boot; fi
busy=false
if [ "\${logins:-0}" -gt 0 ]; then busy=true; fi
if [ "$gpu" != null ] && [ "$gpu" -ge ${BUSY_GPU_PERCENT} ]; then busy=true; fi
if [ "$busy" = true ]; then last=$now; fi
tmp="$DIR/.state.$$"
printf '{"version":1,"updated":%s,"last_activity":%s,"boot":%s,"busy":%s,"gpu_util_max":%s,"logins":%s}\\n' "$now" "$last" "$boot" "$busy" "$gpu" "\${logins:-0}" > "$tmp" && chmod 644 "$tmp" && mv -f "$tmp" "$STATE"
`;

const SERVICE_UNIT = `[Unit]
Description=assistant auto-stop watcher (records whether this machine is in use; stops nothing)

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/assistant-autostop-watch
`;

const TIMER_UNIT = `[Unit]
Description=Run the assistant auto-stop watcher every minute

[Timer]
OnBootSec=30s
OnUnitActiveSec=60s
AccuracySec=5s

[Install]
WantedBy=timers.target
`;

const EOF_MARK = 'ASSISTANT_AUTOSTOP_EOF';
const file = (path: string, content: string, mode: string) => `cat > ${path} <<'${EOF_MARK}'\n${content}${EOF_MARK}\nchmod ${mode} ${path}\n`;

/**
 * The part of a startup script that installs the watcher, with the policy's marker line. It runs in a
 * subshell of its own, first, so a later part of the script that fails (a deploy) cannot keep it from
 * being installed, and it failing cannot stop the rest.
 */
export function watcherSection(policy: AutostopPolicy): string {
  return [
    `# --- assistant auto-stop (${describePolicy(policy)}): a watcher that records idleness; it stops nothing and holds no credentials ---`,
    policyMarker(policy),
    '(',
    'set -e',
    `mkdir -p /usr/local/sbin ${STATE_DIR}`,
    file('/usr/local/sbin/assistant-autostop-watch', WATCH_SCRIPT, '755') +
      file('/etc/systemd/system/assistant-autostop.service', SERVICE_UNIT, '644') +
      file('/etc/systemd/system/assistant-autostop.timer', TIMER_UNIT, '644') +
      'systemctl daemon-reload\nsystemctl enable --now assistant-autostop.timer\n/usr/local/sbin/assistant-autostop-watch',
    ') || echo "assistant auto-stop: installing the watcher failed; autostop check will find no record on this instance" >&2',
    '# --- end of assistant auto-stop ---',
    '',
  ].join('\n');
}

/** A startup script that only installs the watcher. */
export function watcherScript(policy: AutostopPolicy): string {
  return `#!/bin/bash\n${watcherSection(policy)}`;
}

/** `script` with the watcher installed first (after its `#!` line when it has one). */
export function withWatcher(script: string, policy: AutostopPolicy): string {
  if (!script.startsWith('#!')) return watcherSection(policy) + script;
  const eol = script.indexOf('\n');
  if (eol === -1) return `${script}\n${watcherSection(policy)}`;
  return script.slice(0, eol + 1) + watcherSection(policy) + script.slice(eol + 1);
}

/** The name of the shared watcher-only script: its policy and a digest, so one name is one content. */
export function watcherScriptName(policy: AutostopPolicy): string {
  const digest = createHash('sha256').update(watcherScript(policy)).digest('hex').slice(0, 8);
  return `assistant-autostop-${policy.idle_minutes}m-${policy.action}-${digest}`;
}
