/**
 * What AWS (cloud_a) can do above running steps: routing words, context reads and answers from its read
 * catalogue, plans for requests (its maker), its bill, its deploy targets, machines, its credentials and the region its steps go to. A module
 * of its own so that choosing providers for a question loads none of the step code (engine/providers/index.ts loads this, the provider module holds the same object).
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { cliCapabilities } from '../../core/kits/cli/capabilities.js';
import { jointAnswerer } from '../../core/joint-answerers.js';
import { cloudABilled } from './cost.js';
import { cloudACredentials } from './credentials.js';
import { cloudADeploy } from './deploy-capability.js';
import { cloudAMachines } from './machines-capability.js';
import { cloudAMaker } from './maker.js';
import { AWS_CATALOGUE } from './reads.js';
import { resolveAwsTarget } from './target.js';

export const cloudACapabilities: ProviderCapabilities = {
  ...cliCapabilities({
    provider: 'cloud_a',
    label: 'the AWS account (cloud_a)',
    names: ['aws', 'amazon web services', 'amazon'],
    specific: ['ec2', 's3', 'lambda', 'iam', 'rds', 'cloudwatch', 'cloudtrail', 'dynamodb', 'ecs', 'eks', 'fargate', 'cloudformation', 'route53', 'route 53', 'sqs', 'sns', 'ebs', 'elb', 'ami', 'amis', 'vpc', 'vpcs', 'sagemaker', 'cloudfront', 'aurora'],
    catalogue: AWS_CATALOGUE,
    // Its resource words route too ("which buckets do I have"); words gpucloud shares ("instances") stay gpucloud's.
    routeByResourceWords: true,
    keywords: (config) => config.cloud_a?.service_keywords,
  }),
  // Answered with gpucloud's by one parser (a question about both is understood as a whole).
  answer: jointAnswerer('planner'),
  maker: cloudAMaker,
  // Its bill from Cost Explorer (AWS bills afterwards: no balance, no runway).
  cost: { billed: cloudABilled },
  deploy: cloudADeploy,
  // Machines for steps over SSH (k8s create kubeadm --workers <n>): EC2 instances in a security group of their own.
  machines: cloudAMachines,
  credentials: cloudACredentials,
  // The region a report names (`ask --discovery`): the selected environment's, else the aws CLI's own variables.
  target: { region: (config, env, profile) => resolveAwsTarget(config, env, profile).region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION },
};
