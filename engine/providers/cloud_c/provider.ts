/**
 * cloud_c (Azure) as a provider: steps are `az` command lines run through the installed Azure CLI with
 * JSON output (`-o json`) and the subscription of `infra.cloud_c.subscription_id` (`--subscription`),
 * unless the step gives its own.
 */
import { option, parseCommand } from '../../core/kits/cli/argv.js';
import { isolateAz } from '../../core/kits/cli/isolation.js';
import { cliProvider, withOption, type CliIsolation } from '../../core/kits/cli/provider.js';
import type { CliTool } from '../../core/kits/cli/runner.js';
import type { ArgProblem } from '../../core/provider.js';
import { cloudCCapabilities } from './capabilities.js';
import { AZ_RULE_SET, AZ_SYNTAX } from './destroyer.js';
import { burnCloudC, previewCloudC } from './prices.js';

export const AZ_TOOL: CliTool = {
  command: 'az',
  installHint: 'install the Azure CLI (https://learn.microsoft.com/cli/azure/install-azure-cli), then `az login`',
  authFailures: [/Please run 'az login'/i, /AADSTS\d+/, /refresh token has expired|No subscription found|az login/i],
  authHint: 'log in with `az login` (and `az account set --subscription <id>`), check with `az account show`',
};

/** What of the user's environment az may see: managed-identity endpoints on Azure VMs, nothing else. */
export const AZ_ENV = ['IDENTITY_ENDPOINT', 'IDENTITY_HEADER', 'MSI_ENDPOINT', 'MSI_SECRET', 'AZURE_CLOUD_NAME'];

/** `kubelogin get-token` as `az aks get-credentials` writes it for Entra ID clusters, and nothing else. */
function kubelogin(exec: { command: string; args: string[]; env: { name: string; value: string }[] }): string | undefined {
  if (exec.command !== 'kubelogin' || exec.args[0] !== 'get-token') return 'only the kubelogin get-token plugin az writes is accepted';
  const rest = exec.args.slice(1);
  for (let i = 0; i < rest.length; i += 2) {
    if (!/^--(environment|server-id|client-id|tenant-id|login)$/.test(rest[i]!) || !/^[\w.:/-]+$/.test(rest[i + 1] ?? '')) return `unexpected argument ${JSON.stringify(rest[i])}`;
  }
  return exec.env.length ? 'the plugin sets environment variables' : undefined;
}

export const AZ_ISOLATION: CliIsolation = {
  allowEnv: AZ_ENV,
  configure: (scratch, _args, opts) => isolateAz(scratch, opts),
  kubeconfig: {
    writes: (args) => {
      const w = parseCommand(args, AZ_SYNTAX).words;
      return w[0] === 'aks' && w[1] === 'get-credentials';
    },
    redirect: (args, path) => ({ args: [...args, '--file', path], env: {} }),
    exec: kubelogin,
  },
};

export const cloudCProvider = cliProvider({
  name: 'cloud_c',
  tool: AZ_TOOL,
  syntax: AZ_SYNTAX,
  rules: AZ_RULE_SET,
  // `az rest` is a whole command in one word (Cost Management's query, cost.ts); every other needs a group and a command.
  minWords: (cmd) => (cmd.words[0] === 'rest' ? 1 : 2),
  refuse: { '--debug': 'prints request details, tokens included; use `assistant --debug`' },
  usage: '["az", "<group>", …, "<command>", …arguments], e.g. ["az", "vm", "list"]',
  check(cmd) {
    const problems: ArgProblem[] = [];
    for (const v of [...(option(cmd, '--output') ?? []), ...(option(cmd, '-o') ?? [])]) {
      if (v.toLowerCase() !== 'json') problems.push({ field: 'args', message: `--output ${v}: az steps always print JSON (the step's data); leave --output out` });
    }
    return problems;
  },
  capabilities: cloudCCapabilities,
  preview: previewCloudC,
  burn: burnCloudC,
  isolation: AZ_ISOLATION,
  target(opts) {
    const subscription = opts.config.infra?.cloud_c?.subscription_id;
    return {
      add: (args) => {
        const out = withOption(args, { syntax: AZ_SYNTAX }, ['--output', '-o'], ['--output', 'json']);
        // az rest has no --subscription (its URL names the scope): added, az would refuse the argument.
        if (!subscription || parseCommand(args, AZ_SYNTAX).words[0] === 'rest') return out;
        return withOption(out, { syntax: AZ_SYNTAX }, ['--subscription'], ['--subscription', subscription]);
      },
      env: { AZURE_CORE_NO_COLOR: 'true', AZURE_CORE_OUTPUT: 'json' },
      source: subscription ? `infra.cloud_c.subscription_id (${subscription})` : 'the az CLI configuration (infra.cloud_c.subscription_id is not set)',
    };
  },
});

/** The `az` step verb. */
export const azVerb = cloudCProvider.verb;
