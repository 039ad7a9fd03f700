/**
 * Questions for the built-in answers and what they must answer (planner.answer.test.ts), written as
 * people ask them, one class of question per group: negation, yes/no, kind filters, superlatives, a
 * named resource's attribute, routing by resource words, and the questions that must be declined.
 * The account below is what the context plan reads (by request path).
 */
export const ACCOUNT: Record<string, unknown> = {
  '/v1/balance': { amount: 812.5, currency: 'usd' },
  '/v1/instances': [
    { id: '0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21', hostname: 'demo-a100', instance_type: '1A100.22V', status: 'running', location: 'FIN-01', ip: '203.0.113.10', price_per_hour: 1.29, created_at: '2026-11-23T10:00:00.000Z', is_spot: false, gpu: { description: '1x A100 SXM4 80GB', number_of_gpus: 1 } },
    { id: '2d8a6e3c-4b5f-4a7c-9dae-9f8a7b6c5d43', hostname: 'demo-cpu', instance_type: 'CPU.4V.16G', status: 'offline', location: 'FIN-01', ip: '203.0.113.11', price_per_hour: 0.0279, created_at: '2026-11-16T10:00:00.000Z', is_spot: false, gpu: { description: '', number_of_gpus: 0 } },
    { id: '7a1b2c3d-0000-4000-8000-000000000001', hostname: 'train-h100', instance_type: '1H100.80S.22V', status: 'running', location: 'FIN-03', ip: null, price_per_hour: 1.1, created_at: '2026-11-24T08:30:00.000Z', is_spot: true, gpu: { description: '1x H100 SXM5 80GB', number_of_gpus: 1 } },
  ],
  '/v1/volumes': [
    { id: '1c7f5d2b-3a4e-4f6b-8c9d-8e7f6a5b4c32', name: 'OS-demo-a100', size: 100, type: 'NVMe', status: 'attached', location: 'FIN-01', base_hourly_cost: 0.0274, created_at: '2026-11-23T10:00:00.000Z' },
    { id: '4fac8a5e-6d7b-4c9e-9fc0-1bac9d8e7f65', name: 'demo-data', size: 500, type: 'NVMe', status: 'detached', location: 'FIN-01', base_hourly_cost: 0.1389, created_at: '2026-11-20T10:00:00.000Z' },
    { id: '5bcd9b6f-7e8c-4dae-8fd1-2cbdae9f8a76', name: 'scratch', size: 50, type: 'HDD', status: 'detached', location: 'FIN-03', base_hourly_cost: 0.0042, created_at: '2026-11-21T10:00:00.000Z' },
  ],
  '/v1/clusters': [],
  '/v1/instance-types': [
    { id: 't1', instance_type: '1V100.6V', price_per_hour: 0.39, spot_price: 0.14, currency: 'usd', gpu: { description: '1x Tesla V100 16GB', number_of_gpus: 1 }, memory: { size_in_gigabytes: 23 } },
    { id: 't2', instance_type: '1A100.22V', price_per_hour: 1.29, spot_price: 0.6, currency: 'usd', gpu: { description: '1x A100 SXM4 80GB', number_of_gpus: 1 }, memory: { size_in_gigabytes: 120 } },
    { id: 't3', instance_type: '8A100.176V', price_per_hour: 10.32, spot_price: 4.8, currency: 'usd', gpu: { description: '8x A100 SXM4 80GB', number_of_gpus: 8 }, memory: { size_in_gigabytes: 960 } },
    { id: 't4', instance_type: '1H100.80S.22V', price_per_hour: 2.19, spot_price: 1.1, currency: 'usd', gpu: { description: '1x H100 SXM5 80GB', number_of_gpus: 1 }, memory: { size_in_gigabytes: 185 } },
    { id: 't5', instance_type: '8H100.80S.176V', price_per_hour: 17.52, spot_price: 8.8, currency: 'usd', gpu: { description: '8x H100 SXM5 80GB', number_of_gpus: 8 }, memory: { size_in_gigabytes: 1480 } },
    { id: 't6', instance_type: 'CPU.4V.16G', price_per_hour: 0.0279, spot_price: 0.0112, currency: 'usd', gpu: { description: '', number_of_gpus: 0 }, memory: { size_in_gigabytes: 16 } },
  ],
  '/v1/instance-availability': [
    { location_code: 'FIN-01', availabilities: ['1V100.6V', '1A100.22V', '8A100.176V', 'CPU.4V.16G'] },
    { location_code: 'FIN-03', availabilities: ['1V100.6V', '1H100.80S.22V', '8H100.80S.176V', 'CPU.4V.16G'] },
    { location_code: 'ICE-01', availabilities: [] },
  ],
  '/v1/locations': [{ code: 'FIN-01' }, { code: 'FIN-03' }, { code: 'ICE-01' }],
  'aws s3api list-buckets': { Buckets: [{ Name: 'logs-2026' }, { Name: 'ml-datasets' }] },
};

export interface AnswerCase {
  q: string;
  /** The answer, whole (a string) or in part (a RegExp). */
  answer?: string | RegExp;
  /** Declined: the reason must match. */
  declined?: RegExp;
  /** Where the question must be routed (when that is part of the point). */
  providers?: string[];
}

export const ANSWER_CASES: AnswerCase[] = [
  // negation
  { q: 'which volumes are not attached?', answer: '2 volumes are not attached: demo-data, scratch.' },
  { q: 'which volumes are unattached', answer: '2 volumes are not attached: demo-data, scratch.' },
  { q: "which instances aren't running", answer: '1 instance is not running: demo-cpu.' },
  { q: 'is demo-cpu not running?', answer: 'Yes: demo-cpu is offline (not running).' },
  { q: 'which instances in FIN-03 are not offline', answer: '1 instance is not offline in FIN-03: train-h100.' },
  { q: 'how many volumes are not detached?', answer: '1 volume is not detached.' },
  // yes/no questions
  { q: 'is 8H100.80S.176V available in FIN-01?', answer: 'No: 8H100.80S.176V is not available in FIN-01 right now; it is available in FIN-03.' },
  { q: 'is 1A100.22V available in FIN-01?', answer: 'Yes: 1A100.22V is available in FIN-01 (1.29 USD/hour, spot 0.60 USD/hour).' },
  { q: 'Is 8A100.176V available anywhere?', answer: 'Yes: 8A100.176V is available in FIN-01 (10.32 USD/hour, spot 4.80 USD/hour).' },
  { q: 'is demo-a100 running?', answer: 'Yes: demo-a100 is running.' },
  { q: 'is demo-cpu running?', answer: 'No: demo-cpu is offline.' },
  { q: 'are any volumes detached?', answer: 'Yes: 2 volumes are detached: demo-data, scratch.' },
  { q: 'do I have any clusters?', answer: 'No: you have no clusters.' },
  { q: 'are any GPUs available in ICE-01?', answer: 'No: no GPU types are available in ICE-01 right now.' },
  // kind filters: GPU or CPU, GPU model, spot
  { q: 'what GPUs are available in FIN-01?', answer: 'Available in FIN-01 (3 GPU types):\n- 1V100.6V (1x Tesla V100 16GB): 0.39 USD/hour, spot 0.14 USD/hour\n- 1A100.22V (1x A100 SXM4 80GB): 1.29 USD/hour, spot 0.60 USD/hour\n- 8A100.176V (8x A100 SXM4 80GB): 10.32 USD/hour, spot 4.80 USD/hour' },
  { q: 'which CPU types are available in FIN-03', answer: 'Available in FIN-03 (1 CPU type):\n- CPU.4V.16G: 0.0279 USD/hour, spot 0.0112 USD/hour' },
  { q: 'which GPU instances do I have', answer: 'You have 2 GPU instances: demo-a100, train-h100.' },
  { q: 'how many CPU instances are running?', answer: 'None of your 1 CPU instance is running.' },
  { q: 'which spot instances are running', answer: '1 spot instance is running: train-h100.' },
  { q: 'which H100 types are available', answer: 'Available in FIN-03 (2 H100 types):\n- 1H100.80S.22V (1x H100 SXM5 80GB): 2.19 USD/hour, spot 1.10 USD/hour\n- 8H100.80S.176V (8x H100 SXM5 80GB): 17.52 USD/hour, spot 8.80 USD/hour' },
  // superlatives
  { q: 'what is the cheapest GPU instance type?', answer: 'The cheapest GPU instance type is 1V100.6V (0.39 USD/hour).' },
  { q: 'what is the cheapest instance type', answer: 'The cheapest instance type is CPU.4V.16G (0.0279 USD/hour).' },
  { q: 'what is the cheapest GPU available in FIN-03?', answer: 'The cheapest GPU type available in FIN-03 is 1V100.6V (1x Tesla V100 16GB) at 0.39 USD/hour.' },
  { q: 'which instance type has the most GPUs', answer: 'The instance types with the most GPUs are 8A100.176V and 8H100.80S.176V (8 GPUs each).' },
  { q: 'which is my largest volume', answer: 'Your largest volume is demo-data (500 GB).' },
  { q: 'what is my most expensive instance?', answer: 'Your most expensive instance is demo-a100 (1.29 USD/hour).' },
  { q: 'what is my newest instance', answer: 'Your newest instance is train-h100 (created 2026-11-24 08:30 UTC).' },
  { q: 'which is my oldest running instance', answer: 'Your oldest instance that is running is demo-a100 (created 2026-11-23 10:00 UTC).' },
  // a named resource's attribute
  { q: 'what is the IP of demo-a100?', answer: "demo-a100's IP address is 203.0.113.10." },
  { q: "what's train-h100's ip", answer: 'train-h100 has no IP address.' },
  { q: 'where is demo-cpu?', answer: 'demo-cpu is in FIN-01.' },
  { q: 'how much does demo-a100 cost?', answer: 'demo-a100 costs 1.29 USD/hour.' },
  { q: 'what does 1A100.22V cost per hour', answer: '1A100.22V costs 1.29 USD/hour (spot 0.60 USD/hour).' },
  { q: 'how many GPUs does 8A100.176V have', answer: '8A100.176V has 8 GPUs (8x A100 SXM4 80GB).' },
  { q: 'how big is volume demo-data', answer: 'demo-data is 500 GB.' },
  { q: 'when was demo-cpu created', answer: 'demo-cpu was created 2026-11-16 10:00 UTC.' },
  { q: 'what are the IPs of my instances', answer: 'You have 3 instances:\n- demo-a100: IP address 203.0.113.10\n- demo-cpu: IP address 203.0.113.11\n- train-h100: IP address none' },
  // counts, lists, balance
  { q: 'how many instances are running and what is my balance?', answer: '2 instances are running.\nYour balance is 812.50 USD.' },
  { q: 'list my instances', answer: /^You have 3 instances: 2 running, 1 offline\.\n- demo-a100 \(1A100\.22V, FIN-01, running\)/ },
  { q: 'which volumes are in FIN-03', answer: 'You have 1 volume in FIN-03: scratch.' },
  // routing by the resource words of every provider
  { q: 'which buckets do I have', providers: ['cloud_a'], answer: '2 S3 buckets:\n- logs-2026\n- ml-datasets' },
  { q: 'how many buckets do I have?', providers: ['cloud_a'], answer: '2 S3 buckets.' },
  // declined with the reason, never answered with another list
  { q: 'which instances were created last week by bob?', declined: /do not know the words "last", "week", "by" and "bob"/ },
  { q: 'what is the weather like tomorrow', declined: /do not know the words "weather" and "tomorrow"/ },
  { q: 'which instances are idle', declined: /"idle": the API does not show whether an instance is in use/ },
  { q: 'which ssh keys are in FIN-01', declined: /cannot tell which of them are in FIN-01/ },
  { q: 'what is the IP of volume demo-data', declined: /cannot read the IP address of demo-data/ },
  { q: 'is my balance above 100?', declined: /do not know the words "above" and "100"/ },
  { q: 'how big is demo-data', declined: /"demo-data" .*name the kind too, e\.g\. "volume demo-data"/ },
  { q: 'which instances are not', declined: /a "not" they cannot place/ },
  { q: 'which buckets and volumes are in FIN-01', declined: /in FIN-01/ },
  { q: 'is demo-a100 expensive?', declined: /yes or no/ },
];
