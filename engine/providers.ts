/**
 * The providers this build knows. Surfaces (commands/, the MCP server) hand this set to validation and
 * to every run; the plan core never imports it. A new provider is one folder and one line here.
 */
import { ProviderSet } from './provider.js';
import { gpucloudProvider } from './gpucloud/provider.js';
import { sshProvider } from './ssh/provider.js';
import { cloudAProvider } from './cloud_a/provider.js';
import { k8sProvider } from './k8s/provider.js';
import { cloudBProvider } from './cloud_b/provider.js';
import { cloudCProvider } from './cloud_c/provider.js';

export const PROVIDERS = new ProviderSet([gpucloudProvider, cloudAProvider, cloudBProvider, cloudCProvider, k8sProvider, sshProvider]);
