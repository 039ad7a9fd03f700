/**
 * The ssh provider's client: settings resolved once per session (provider.ts sshSettingsFor), read by
 * its steps (remote.ts) and its preflight (private-key.ts). A module of its own, types only.
 */
/** What the `ssh` provider's client is: settings resolved once per session, no open connection. */
export interface SshSettings {
  home: string;
  /** The private key file (gpucloud.ssh_key_path), `~` expanded; undefined when not configured. */
  keyPath?: string;
  port: number;
  /**
   * The address every host is reached at instead of its own (the sandbox's stand-in head node on
   * 127.0.0.1, so no step connects off this machine whatever host it names); the host keeps its name in
   * messages and known_hosts. Undefined: the host itself.
   */
  reachAt?: string;
  knownHostsFile: string;
  /** Where ssh-kubeconfig merges contexts (kubernetes.kubeconfig, KUBECONFIG's first path, ~/.kube/config). */
  kubeconfigPath: string;
  /** Says, on stderr, what the user should know (a newly pinned host key and its fingerprint). */
  notice: (message: string) => void;
  debug?: (line: string) => void;
}
