/**
 * Phrasings for the built-in planner and the plans they must produce (accuracy test in
 * planner.builtin.test.ts). Written as users phrase things, not as the grammar wants them.
 */
import type { BuiltinContext } from '../../engine/producers/planner/builtin.js';

export const I1 = '11111111-1111-4111-8111-111111111111'; // train-1, running, FIN-01
export const I2 = '22222222-2222-4222-8222-222222222222'; // train-2, offline, FIN-03
export const I3 = '55555555-5555-4555-8555-555555555555'; // big-box, running, FIN-03
export const I4 = '66666666-6666-4666-8666-666666666666'; // gpu-a100, offline, FIN-01
export const C1 = '33333333-3333-4333-8333-333333333333'; // cluster c1
export const V1 = '44444444-4444-4444-8444-444444444444'; // volume data

const GPU_IMAGES = ['ubuntu-24.04-cuda-12.8-open-docker', 'ubuntu-24.04-cuda-13.0-open-docker'];
const CPU_IMAGES = ['ubuntu-22.04', 'ubuntu-24.04'];

export const CONTEXT: BuiltinContext = {
  lookup: {
    instances: [
      { id: I1, hostname: 'train-1', status: 'running', location: 'FIN-01' },
      { id: I2, hostname: 'train-2', status: 'offline', location: 'FIN-03' },
      { id: I3, hostname: 'big-box', status: 'running', location: 'FIN-03' },
      { id: I4, hostname: 'gpu-a100', status: 'offline', location: 'FIN-01' }, // a name holding kind words
    ],
    clusters: [{ id: C1, hostname: 'c1', status: 'running' }],
    volumes: [{ id: V1, name: 'data', location: 'FIN-01', status: 'detached' }],
  },
  catalogue: {
    clusterImages: [
      { image_type: 'ubuntu-24.04-cuda-13.0-cluster', name: 'Ubuntu 24.04 + CUDA 13.0 + Slurm', category: 'slurm', details: ['Slurm'] },
      { image_type: 'ubuntu-24.04-cuda-13.0-cluster-k8s', name: 'Ubuntu 24.04 + CUDA 13.0 + Kubernetes', category: 'kubernetes', details: ['Kubernetes'] },
    ],
    instanceTypes: ['1V100.6V', '8V100.48V', '1A100.22V', '8A100.176V', '1H100.80S.22V', '8H100.80S.176V', '1L40S.20V', '1RTX6000ADA.10V', 'CPU.4V.16G'].map((instance_type) => ({
      instance_type,
      supported_os: instance_type.startsWith('CPU.') ? CPU_IMAGES : [...GPU_IMAGES, ...CPU_IMAGES],
    })),
    // The GPU default is listed after a CPU image: the planner must pick by compatibility, not by position.
    images: [
      { image_type: 'ubuntu-22.04', is_default: false },
      { image_type: 'ubuntu-24.04-cuda-12.8-open-docker', is_default: true },
      { image_type: 'ubuntu-24.04-cuda-13.0-open-docker', is_default: false },
      { image_type: 'ubuntu-24.04', is_default: false },
    ],
    locations: ['FIN-01', 'FIN-02', 'FIN-03', 'ICE-01'].map((code) => ({ code })),
    // 8V100.48V is sold out everywhere, 8H100.80S.176V only in FIN-03; ICE-01 lists nothing (not checked there).
    availability: [
      { location_code: 'FIN-01', availabilities: ['1V100.6V', '1A100.22V', '8A100.176V', '1RTX6000ADA.10V', 'CPU.4V.16G'] },
      { location_code: 'FIN-03', availabilities: ['1V100.6V', '1A100.22V', '8A100.176V', '1H100.80S.22V', '8H100.80S.176V', '1L40S.20V', 'CPU.4V.16G'] },
    ],
    clusterTypes: ['16H100', '16B200', '32H200'].map((cluster_type) => ({ cluster_type })),
  },
};

export interface ExpectedCommand {
  /** gpucloud-api method and path; body compared as parsed JSON. */
  m?: string;
  p?: string;
  body?: unknown;
  /** Any other verb: the full args. */
  args?: string[];
  produces?: Record<string, string>;
}

export interface PlannerCase {
  q: string;
  expect?: ExpectedCommand[];
  /** Expected error code instead of a plan. */
  error?: string;
}

const IMG = 'ubuntu-24.04-cuda-12.8-open-docker';
const KEY = ['<DEFAULT_SSH_KEY_ID>'];
const LOC = '<DEFAULT_LOCATION>';
const get = (p: string): ExpectedCommand => ({ m: 'GET', p });
const put = (p: string, body: unknown): ExpectedCommand => ({ m: 'PUT', p, body });
const createInstance = (instance_type: string, hostname: string, location_code: string, extra: Record<string, unknown> = {}, image = IMG): ExpectedCommand => ({
  m: 'POST',
  p: '/v1/instances',
  body: { instance_type, image, hostname, description: '', location_code, ssh_key_ids: KEY, ...extra },
  produces: { INSTANCE_ID: '$.id' },
});
// The shared volume is the smallest the API makes when the request names none, as k8s create gpucloud chooses (issue 39 item 8).
const createCluster = (cluster_type: string, hostname: string, image: string, location_code: string): ExpectedCommand[] => [
  {
    m: 'POST',
    p: '/v1/clusters',
    body: { cluster_type, image, hostname, description: '', location_code, ssh_key_ids: KEY, shared_volume: { name: `${hostname}-shared-volume`, size: 40 } },
    produces: { CLUSTER_ID: '$.id' },
  },
  { args: ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running'] },
];
const createVolume = (type: string, name: string, size: number, location_code: string): ExpectedCommand => ({
  m: 'POST',
  p: '/v1/volumes',
  body: { type, name, size, location_code },
  produces: { VOLUME_ID: '$.id' },
});

const waitVolume: ExpectedCommand = { args: ['gpucloud-wait', 'volumes', '<VOLUME_ID>', 'detached', '600', '2'] };
const createNth = (n: number, instance_type: string, hostname: string, location_code: string, image = IMG): ExpectedCommand => ({
  ...createInstance(instance_type, hostname, location_code, {}, image),
  produces: { [`INSTANCE_ID_${n}`]: '$.id' },
});

export const PLANNER_CASES: PlannerCase[] = [
  // listing any catalogue kind
  { q: 'list my instances', expect: [get('/v1/instances')] },
  { q: 'show me all my VMs', expect: [get('/v1/instances')] },
  { q: 'what servers do I have?', expect: [get('/v1/instances')] },
  { q: 'how many instances are running', expect: [get('/v1/instances')] },
  { q: 'show volumes', expect: [get('/v1/volumes')] },
  { q: 'what instance types are there', expect: [get('/v1/instance-types')] },
  { q: 'What GPU types can I rent?', expect: [get('/v1/instance-types')] },
  { q: 'list locations', expect: [get('/v1/locations')] },
  { q: 'which datacenters are there', expect: [get('/v1/locations')] },
  { q: 'show my ssh keys', expect: [get('/v1/sshkeys')] },
  { q: 'list my startup scripts', expect: [get('/v1/scripts?page=1&pageSize=100')] },
  { q: 'show my instant clusters', expect: [get('/v1/clusters')] },
  { q: 'list serverless containers', expect: [get('/v1/container-deployments')] },
  { q: 'what jobs are deployed', expect: [get('/v1/job-deployments')] },
  { q: 'list my secrets', expect: [get('/v1/secrets')] },
  { q: 'show the OS images', expect: [get('/v1/images')] },
  { q: 'which cluster images are there', expect: [get('/v1/images/cluster')] },
  { q: 'show instance availability in FIN-03', expect: [get('/v1/instance-availability?location_code=FIN-03')] },
  { q: 'which instance types are available right now?', expect: [get('/v1/instance-availability')] },
  { q: 'what volume types are there', expect: [get('/v1/volume-types')] },
  { q: 'show me the long-term discounts', expect: [get('/v1/long-term/periods')] },
  { q: 'list instances and volumes', expect: [get('/v1/instances'), get('/v1/volumes')] },
  { q: 'show instance train-2', expect: [get(`/v1/instances/${I2}`)] },
  { q: 'list my container registry credentials', expect: [get('/v1/container-registry-credentials')] },
  // balance
  { q: 'what is my balance', expect: [get('/v1/balance')] },
  { q: 'how much credit do I have left?', expect: [get('/v1/balance')] },
  { q: 'check my account funds', expect: [get('/v1/balance')] },
  // creating instances
  { q: 'create a 1V100.6V instance called train-3 in FIN-01', expect: [createInstance('1V100.6V', 'train-3', 'FIN-01')] },
  { q: 'spin up an 8H100.80S.176V named big in FIN-03', expect: [createInstance('8H100.80S.176V', 'big', 'FIN-03')] },
  { q: 'launch a CPU.4V.16G server named jump-host', expect: [createInstance('CPU.4V.16G', 'jump-host', LOC, {}, 'ubuntu-24.04')] },
  { q: 'I need a 1A100.22V called finetune with my default ssh key', expect: [createInstance('1A100.22V', 'finetune', LOC)] },
  { q: 'start a new 1H100.80S.22V spot instance called spotty in ICE-01', expect: [createInstance('1H100.80S.22V', 'spotty', 'ICE-01', { is_spot: true })] },
  { q: 'provision a 1L40S.20V', expect: [createInstance('1L40S.20V', '1l40s-20v', LOC)] },
  { q: 'create an instance with a single H100 called h1 in FIN-03', expect: [createInstance('1H100.80S.22V', 'h1', 'FIN-03')] },
  { q: 'new 1RTX6000ADA.10V box named render-1 at FIN-01', expect: [createInstance('1RTX6000ADA.10V', 'render-1', 'FIN-01')] },
  { q: 'create a 8x A100 machine named a100s in fin-03', expect: [createInstance('8A100.176V', 'a100s', 'FIN-03')] },
  // instance actions by hostname
  { q: 'shut down train-1', expect: [put('/v1/instances', { action: 'shutdown', id: I1 })] },
  { q: 'please stop the instance called big-box', expect: [put('/v1/instances', { action: 'shutdown', id: I3 })] },
  { q: 'start train-2', expect: [put('/v1/instances', { action: 'start', id: I2 })] },
  { q: 'boot up train-2 again', expect: [put('/v1/instances', { action: 'start', id: I2 })] },
  { q: 'hibernate big-box', expect: [put('/v1/instances', { action: 'hibernate', id: I3 })] },
  { q: 'delete instance train-2', expect: [put('/v1/instances', { action: 'delete', id: I2 })] },
  { q: 'terminate train-1 and train-2', expect: [put('/v1/instances', { action: 'delete', id: I1 }), put('/v1/instances', { action: 'delete', id: I2 })] },
  { q: 'force shutdown train-1', expect: [put('/v1/instances', { action: 'force_shutdown', id: I1 })] },
  { q: 'stop all running instances', expect: [put('/v1/instances', { action: 'shutdown', id: I1 }), put('/v1/instances', { action: 'shutdown', id: I3 })] },
  { q: `power on ${I2}`, expect: [put('/v1/instances', { action: 'start', id: I2 })] },
  { q: 'turn off my box big-box', expect: [put('/v1/instances', { action: 'shutdown', id: I3 })] },
  // Instant Clusters
  { q: 'create a 16H100 instant cluster called c2 in FIN-03', expect: createCluster('16H100', 'c2', 'ubuntu-24.04-cuda-13.0-cluster', 'FIN-03') },
  { q: 'spin up a Kubernetes cluster of type 16B200 named k8s-1 in FIN-03', expect: createCluster('16B200', 'k8s-1', 'ubuntu-24.04-cuda-13.0-cluster-k8s', 'FIN-03') },
  { q: 'discontinue cluster c1', expect: [put('/v1/clusters', { actions: [{ action: 'discontinue', id: C1 }] })] },
  { q: 'delete the instant cluster c1', expect: [put('/v1/clusters', { actions: [{ action: 'discontinue', id: C1 }] })] },
  // volumes
  { q: 'create a 500GB volume called scratch', expect: [createVolume('NVMe', 'scratch', 500, LOC)] },
  { q: 'create a 2TB HDD volume named archive in FIN-03', expect: [createVolume('HDD', 'archive', 2000, 'FIN-03')] },
  {
    q: 'create a 200 GB volume called ckpt and attach it to train-2',
    expect: [createVolume('NVMe', 'ckpt', 200, 'FIN-03'), waitVolume, put('/v1/volumes', { action: 'attach', id: '<VOLUME_ID>', instance_id: I2 })],
  },
  { q: 'attach volume data to train-2', expect: [put('/v1/volumes', { action: 'attach', id: V1, instance_id: I2 })] },
  { q: 'attach volume data to train-1', error: 'builtin_instance_running' }, // the API attaches only to a shut-down instance
  { q: 'detach volume data', expect: [put('/v1/volumes', { action: 'detach', id: V1 })] },
  { q: 'delete volume data', expect: [put('/v1/volumes', { action: 'delete', id: V1 })] },
  // more phrasings, written without looking at the grammar
  { q: 'Could you list all the volumes I have?', expect: [get('/v1/volumes')] },
  { q: 'Do I have any clusters running?', expect: [get('/v1/clusters')] },
  { q: 'whats my current credit balance', expect: [get('/v1/balance')] },
  { q: 'How much have I spent?', expect: [get('/v1/balance')] },
  { q: 'what regions can I deploy to', expect: [get('/v1/locations')] },
  { q: 'Give me an overview of the H100 prices', expect: [get('/v1/instance-types')] },
  { q: 'please bring up a fresh 1V100.6V named dev-box in FIN-01', expect: [createInstance('1V100.6V', 'dev-box', 'FIN-01')] },
  { q: 'can you shut train-1 down', expect: [put('/v1/instances', { action: 'shutdown', id: I1 })] },
  { q: 'Turn train-2 back on', expect: [put('/v1/instances', { action: 'start', id: I2 })] },
  { q: 'get rid of big-box', expect: [put('/v1/instances', { action: 'delete', id: I3 })] },
  { q: 'make me a 1TB shared volume called team', expect: [createVolume('NVMe_Shared', 'team', 1000, LOC)] },
  { q: 'tear down the c1 cluster', expect: [put('/v1/clusters', { actions: [{ action: 'discontinue', id: C1 }] })] },
  { q: 'what serverless jobs exist', expect: [get('/v1/job-deployments')] },
  { q: 'show file secrets', expect: [get('/v1/file-secrets')] },
  { q: 'list every running vm', expect: [get('/v1/instances')] },
  { q: 'which ssh keys are registered?', expect: [get('/v1/sshkeys')] },
  { q: 'switch off train-1 please', expect: [put('/v1/instances', { action: 'shutdown', id: I1 })] },
  { q: 'Launch an instance of type 8A100.176V called multi in FIN-01', expect: [createInstance('8A100.176V', 'multi', 'FIN-01')] },
  { q: 'remove the volume named data', expect: [put('/v1/volumes', { action: 'delete', id: V1 })] },
  { q: 'show me my balance and my instances', expect: [get('/v1/balance'), get('/v1/instances')] },
  // issue 10 §1: quantities and lists of names are honoured, or refused
  { q: 'create two 1V100.6V instances called a1 and a2', expect: [createNth(1, '1V100.6V', 'a1', LOC), createNth(2, '1V100.6V', 'a2', LOC)] },
  { q: 'create 3 CPU.4V.16G instances called web-a, web-b, web-c in FIN-01', expect: ['web-a', 'web-b', 'web-c'].map((h, i) => createNth(i + 1, 'CPU.4V.16G', h, 'FIN-01', 'ubuntu-24.04')) },
  { q: 'launch 2 H100 instances named gpu in FIN-03', expect: [createNth(1, '1H100.80S.22V', 'gpu-1', 'FIN-03'), createNth(2, '1H100.80S.22V', 'gpu-2', 'FIN-03')] },
  { q: 'spin up a couple of 1V100.6V boxes called x1 and x2', expect: [createNth(1, '1V100.6V', 'x1', LOC), createNth(2, '1V100.6V', 'x2', LOC)] },
  { q: 'create 1000 H200 instances in the moon datacenter', error: 'too_many' },
  { q: 'create 11 1V100.6V instances', error: 'too_many' },
  { q: 'create three 1V100.6V instances called a1 and a2', error: 'builtin_count_mismatch' },
  { q: 'create a few 1V100.6V instances', error: 'builtin_missing_value' },
  { q: 'create 2 volumes called v1 and v2', error: 'too_many' },
  { q: 'create two 1V100.6V instances called twin and twin', error: 'builtin_duplicate_name' },
  // a location, type or image the live catalogue does not have is refused, listing the valid ones
  { q: 'create a 1H200.141S.44V instance in the moon datacenter', error: 'unknown_location' },
  { q: 'create a 1V100.6V called far in MARS-01', error: 'unknown_location' },
  { q: 'create a 1V100.6V called far in XYZ-09', error: 'unknown_location' },
  { q: 'create a 1V100.6V called far in region mars', error: 'unknown_location' },
  { q: 'create a 4B300.99V instance called nope', error: 'unknown_instance_type' },
  { q: 'create an instance with a single B300 called nope', error: 'unknown_instance_type' },
  { q: 'create a 1V100.6V called img with image windows-11', error: 'unknown_image' },
  { q: 'create a CPU.4V.16G called cpu-cuda with image ubuntu-24.04-cuda-12.8-open-docker', error: 'incompatible_image' },
  { q: 'create a 1V100.6V called plain with image ubuntu-22.04', expect: [createInstance('1V100.6V', 'plain', LOC, {}, 'ubuntu-22.04')] },
  { q: 'create a 64Z999 instant cluster called zz in FIN-03', error: 'unknown_cluster_type' },
  { q: 'create a 100GB volume called far in MARS-01', error: 'unknown_location' },
  { q: 'create a 8H100.80S.176V called big2 in FIN-01', error: 'not_available' },
  { q: 'create a 8V100.48V called multi2 in FIN-03', error: 'not_available' },
  { q: 'create a spot 8H100.80S.176V called big3 in FIN-01', expect: [createInstance('8H100.80S.176V', 'big3', 'FIN-01', { is_spot: true })] },
  // anything not understood, wholly or in part, is refused
  { q: 'rename train-1 to trainer', error: 'not_understood' },
  { q: 'write me a poem about GPUs', error: 'not_understood' },
  { q: 'create a 1V100.6V instance called t9 and then delete it', error: 'not_understood' },
  { q: 'create a 1V100.6V called t9 and install pytorch on it', error: 'not_understood' },
  { q: 'shut down train-1 and delete train-2', error: 'not_understood' },
  { q: 'shut down train-1 and then reboot it', error: 'not_understood' },
  { q: 'list my instances and delete them', error: 'not_understood' },
  { q: 'show instances in FIN-01', error: 'not_understood' },
  { q: 'show instance train-9', error: 'builtin_unknown_target' },
  { q: 'what is the weather in Helsinki', error: 'not_understood' },
  { q: 'delete volume data and detach it', error: 'not_understood' },
  { q: 'create a 1V100.6V called t9 with 4 extra disks', error: 'not_understood' },
  // create a volume and attach it: waits until the volume is ready; refused when the instance runs
  { q: 'create a volume and attach it to train-2', expect: [createVolume('NVMe', 'volume-100gb', 100, 'FIN-03'), waitVolume, put('/v1/volumes', { action: 'attach', id: '<VOLUME_ID>', instance_id: I2 })] },
  { q: 'create a 50GB volume called logs and attach it to train-1', error: 'builtin_instance_running' },
  { q: 'create a 50GB volume called logs in FIN-01 and attach it to train-2', error: 'builtin_location_mismatch' },
  {
    q: 'create a 50GB volume called logs and attach it to train-1, shut it down first',
    expect: [
      put('/v1/instances', { action: 'shutdown', id: I1 }),
      { args: ['gpucloud-wait', 'instances', I1, 'offline', '600', '2'] },
      createVolume('NVMe', 'logs', 50, 'FIN-01'),
      waitVolume,
      put('/v1/volumes', { action: 'attach', id: '<VOLUME_ID>', instance_id: I1 }),
    ],
  },
  { q: 'create a 50GB volume called logs and attach it to train-1 and shut down big-box', error: 'not_understood' },
  { q: 'create a 50GB volume called logs and shut down train-1', error: 'not_understood' },
  { q: 'make a 1TB HDD volume named bulk for the instance train-2', expect: [createVolume('HDD', 'bulk', 1000, 'FIN-03'), waitVolume, put('/v1/volumes', { action: 'attach', id: '<VOLUME_ID>', instance_id: I2 })] },
  // parts that a plan would silently drop
  { q: 'create a 1V100.6V instance called t1 with 2TB disk', error: 'not_understood' },
  { q: 'create a 1V100.6V instance called t1 with a startup script', error: 'not_understood' },
  { q: 'create a 1V100.6V and a 1A100.22V', error: 'not_understood' },
  { q: 'create a 1V100.6V instance called t1 and a volume', error: 'not_understood' },
  { q: 'create a 16H100 cluster called c3 and a 1V100.6V', error: 'not_understood' },
  { q: 'create a 1V100.6V instance called t1 in FIN-01 and FIN-03', error: 'not_understood' },
  { q: "create a 1V100.6V instance called t1 and don't start it", error: 'not_understood' },
  { q: 'create the cheapest GPU instance', error: 'not_understood' },
  { q: 'do not shut down train-1', error: 'not_understood' },
  { q: 'shut down train-1 in 5 minutes', error: 'not_understood' },
  { q: 'stop all instances except big-box', error: 'not_understood' },
  { q: 'hibernate train-1 and start train-2', error: 'not_understood' },
  { q: 'list instances sorted by price', error: 'not_understood' },
  { q: 'list my instances; rm -rf /', error: 'not_understood' },
  { q: 'show balance in EUR', error: 'not_understood' },
  { q: 'create 0 1V100.6V instances', error: 'builtin_missing_value' },
  { q: 'create a 1V100.6V instance called default in FIN-01', expect: [createInstance('1V100.6V', 'default', 'FIN-01')] },
  { q: 'create a 1V100.6V instance called stop', error: 'not_understood' },
  { q: 'create an instance with 8 H100s in FIN-03 called eight', expect: [createInstance('8H100.80S.176V', 'eight', 'FIN-03')] },
  { q: 'show instance gpu-a100', expect: [get(`/v1/instances/${I4}`)] },
  { q: 'start gpu-a100', expect: [put('/v1/instances', { action: 'start', id: I4 })] },
  // odd encodings: curly quotes and non-breaking spaces read as plain ones
  { q: 'create a 1V100.6V instance called “quoted” in FIN-01', expect: [createInstance('1V100.6V', 'quoted', 'FIN-01')] },
  { q: 'shut\u00a0down train-1', expect: [put('/v1/instances', { action: 'shutdown', id: I1 })] },
  // more phrasings that must still plan
  { q: 'show me instance big-box', expect: [get(`/v1/instances/${I3}`)] },
  { q: 'what GPUs are available in FIN-01', expect: [get('/v1/instance-availability?location_code=FIN-01')] },
  { q: 'create a new 1V100.6V instance called fresh-1', expect: [createInstance('1V100.6V', 'fresh-1', LOC)] },
  { q: 'shut down train-1 and big-box', expect: [put('/v1/instances', { action: 'shutdown', id: I1 }), put('/v1/instances', { action: 'shutdown', id: I3 })] },
  // outside the grammar, or impossible: a clear error
  { q: 'write me a haiku', error: 'not_understood' },
  { q: 'restart train-1', error: 'not_understood' },
  { q: 'create a secret called token', error: 'not_understood' },
  { q: 'shut down train-9', error: 'builtin_unknown_target' },
];
