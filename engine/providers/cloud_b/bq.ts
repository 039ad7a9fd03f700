/**
 * `bq`, cloud_b's second executable (it comes with the Google Cloud CLI and reads the same login), for
 * one thing: the billing export query of `cost --provider cloud_b` (cost.ts). Its allowlist has one row
 * and refuses everything else outright, --destroyer or not: a step is run only when its argv is exactly
 * a query `billingQueryArgs` writes (a SELECT on the configured export, parameters passed as query
 * parameters, bytes billed capped). Anything else of BigQuery belongs to `gcloud` steps or to the user.
 */
import type { CliSyntax, ParsedCommand } from '../../core/kits/cli/argv.js';
import type { CliCompanion } from '../../core/kits/cli/provider.js';
import type { CliRuleSet } from '../../core/kits/cli/rules.js';
import { asBillingQuery } from './cost.js';

export const BQ_SYNTAX: CliSyntax = {
  tool: 'bq',
  // bq's global flags go before the command; none is part of the one form allowed (the client adds --project_id).
  globalValueOptions: new Set(['--project_id', '--dataset_id', '--location', '--format', '--apilog', '--bigqueryrc', '--credential_file', '--service_account_credential_file', '--api']),
  globalFlags: new Set(['--quiet', '-q', '--headless', '--nodebug_mode', '--debug_mode']),
  abbreviations: false,
};

const ONLY = 'bq steps run only the Cloud Billing export query the cost commands write (a SELECT on infra.cloud_b.billing_export_table); use gcloud steps for anything else';

export const BQ_RULE_SET: CliRuleSet = {
  tool: 'bq',
  rules: [{ command: 'query', effect: 'read', why: 'reads the Cloud Billing export (one SELECT, bytes billed capped)' }],
  decidingWords: 1,
  refusals: (cmd: ParsedCommand) => (asBillingQuery(cmd.args) ? [] : [ONLY]),
  refusalText: ['anything but the exact billing export query `cost --provider cloud_b` writes (global flags, other SQL, other commands)'],
};

export const BQ_COMPANION: CliCompanion = {
  tool: {
    command: 'bq',
    installHint: 'bq comes with the Google Cloud CLI (https://cloud.google.com/sdk/docs/install); then `gcloud auth login`',
    authFailures: [/You do not currently have an active account selected/i, /Reauthentication required|problem refreshing your current auth tokens|does not have any valid credentials/i, /gcloud auth login/],
    authHint: 'log in with `gcloud auth login` (bq uses the Google Cloud CLI\'s login), check with `gcloud auth list`',
  },
  syntax: BQ_SYNTAX,
  rules: BQ_RULE_SET,
  minWords: 1,
  usage: 'the billing export query the cost commands write: ["bq", "query", …] (assistant cost … --provider cloud_b)',
};
