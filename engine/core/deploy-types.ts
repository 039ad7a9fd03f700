/**
 * What `deploy` knows of a repository and asks a provider to compile: the contract between the deploy
 * producer (engine/producers/deploy/: clone, analyse) and the providers' `deploy` capabilities (their compilers).
 */
import type { AutostopPolicy } from '../../schemas/plan.js';

export type Runtime = 'python' | 'node' | 'docker' | 'compose' | 'shell';

export interface ComposeService {
  name: string;
  image?: string;
  build: boolean;
  /** Container ports (the right side of "8080:80"). */
  ports: number[];
  gpu: boolean;
}

export interface Stack {
  /** python, node, or what only a Dockerfile / compose file tells (docker). Undefined: nothing recognised. */
  language?: 'python' | 'node' | 'docker';
  framework?: string;
  /** How an instance runs it: a Dockerfile wins (docker), then compose with a build, then the language. */
  runtime?: Runtime;
  dockerfile?: { from: string[]; expose: number[]; cmd?: string };
  compose?: { file: string; services: ComposeService[] };
  /** A prebuilt image the repository names (compose `image:` of a service without `build:`). */
  image?: string;
  /** The port, when exactly one candidate was found. */
  port?: number;
  /** Every candidate port seen (two or more: ambiguous). */
  portCandidates: number[];
  start?: string;
  gpu: { needed: boolean; reasons: string[]; memoryGb?: number };
  env: { name: string; secret: boolean }[];
  /** Files that told what is above, for people. */
  evidence: string[];
}

export type Target = 'instance' | 'container';

export interface EnvValue {
  name: string;
  value: string;
  secret: boolean;
}

export interface DeployRequest {
  name: string;
  /** The repository URL without user info. */
  url: string;
  sha: string;
  stack: Stack;
  port: number;
  start?: string;
  target: Target;
  location: string;
  instanceType?: string;
  /** Container image (target container). */
  image?: string;
  env: EnvValue[];
  minReplicas: number;
  maxReplicas: number;
  healthPath: string;
  /** Cloned with a token: the instance needs its own read access. */
  privateRepo: boolean;
  /** Idle auto-stop of the instance (target instance): the watcher goes first in its startup script. */
  autostop?: AutostopPolicy;
}
