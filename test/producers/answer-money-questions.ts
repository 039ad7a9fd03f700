/**
 * Questions about money and counts for the built-in answers (planner.answer-money.test.ts), in people's
 * words: spend and burn, runway, what resources cost (each, per period, in total), price and GPU filters,
 * superlatives, GPU counts, names that are also words ("big", "data"), and talk's follow-ups. The account
 * below is what the context plan reads; every figure a case expects is computed from it here, by the
 * billing rules of the wire reference as the cost capability counts them (running and offline instances
 * bill; one ordered or provisioning is counted at its price, as it bills once it runs, with the OS volume
 * it will get, 100 GB NVMe with GPUs, 50 GB without, while the account lists none for it; a spot instance
 * at the current spot price; a volume at its type's price per GB and 30-day month whatever its status),
 * not by the code under test.
 */
export type Rec = Record<string, unknown>;

const instance = (id: string, hostname: string, type: string, status: string, location: string, ip: string | null, price: number, gpus: number, extra: Rec = {}): Rec => ({
  id,
  hostname,
  instance_type: type,
  status,
  location,
  ip,
  price_per_hour: price,
  created_at: '2026-11-20T10:00:00.000Z',
  is_spot: false,
  gpu: { description: gpus ? `${gpus}x GPU` : '', number_of_gpus: gpus },
  ...extra,
});

const volume = (id: string, name: string, size: number, type: string, status: string, location: string, instanceId: string | null): Rec => ({
  id,
  name,
  size,
  type,
  status,
  location,
  instance_id: instanceId,
  // The API's own figure (monthly / 730): not what `cost summary` bills (monthly / 720), never what an answer says.
  base_hourly_cost: Math.round(((size * (type === 'HDD' ? 0.05 : 0.2)) / 730) * 10000) / 10000,
  created_at: '2026-11-21T10:00:00.000Z',
});

export const MONEY_ACCOUNT: Record<string, unknown> = {
  '/v1/balance': { amount: 750, currency: 'usd' },
  '/v1/instances': [
    instance('i-0001', 'big', '8A100.176V', 'running', 'FIN-01', '203.0.113.20', 10.32, 8),
    instance('i-0002', 'small', '1V100.6V', 'running', 'FIN-03', '203.0.113.21', 0.39, 1),
    instance('i-0003', 'data', '1A100.22V', 'running', 'FIN-01', '203.0.113.22', 1.29, 1),
    // Spot: contracted at 1.05, billed at the current spot price of its type (1.10).
    instance('i-0004', 'train-h100', '1H100.80S.22V', 'running', 'FIN-03', '203.0.113.23', 1.05, 1, { is_spot: true }),
    instance('i-0005', 'cpu-box', 'CPU.4V.16G', 'offline', 'FIN-01', '203.0.113.24', 0.0279, 0),
    instance('i-0006', 'new-one', '1V100.6V', 'provisioning', 'FIN-01', null, 0.39, 1),
    instance('i-0007', 'sleeper', '8H100.80S.176V', 'hibernated', 'FIN-03', null, 17.52, 8),
  ],
  '/v1/volumes': [
    volume('v-0001', 'OS-big', 100, 'NVMe', 'attached', 'FIN-01', 'i-0001'),
    volume('v-0002', 'OS-data', 100, 'NVMe', 'attached', 'FIN-01', 'i-0003'),
    volume('v-0003', 'datasets', 1000, 'NVMe', 'detached', 'FIN-01', null),
    volume('v-0004', 'scratch', 50, 'HDD', 'detached', 'FIN-03', null),
    volume('v-0005', 'OS-sleeper', 100, 'NVMe', 'attached', 'FIN-03', 'i-0007'),
  ],
  '/v1/clusters': [],
  '/v1/instance-types': [
    { id: 't1', instance_type: '1V100.6V', price_per_hour: 0.39, spot_price: 0.14, currency: 'usd', gpu: { description: '1x Tesla V100 16GB', number_of_gpus: 1 } },
    { id: 't2', instance_type: '1A100.22V', price_per_hour: 1.29, spot_price: 0.6, currency: 'usd', gpu: { description: '1x A100 SXM4 80GB', number_of_gpus: 1 } },
    { id: 't3', instance_type: '8A100.176V', price_per_hour: 10.32, spot_price: 4.8, currency: 'usd', gpu: { description: '8x A100 SXM4 80GB', number_of_gpus: 8 } },
    { id: 't4', instance_type: '1H100.80S.22V', price_per_hour: 2.19, spot_price: 1.1, currency: 'usd', gpu: { description: '1x H100 SXM5 80GB', number_of_gpus: 1 } },
    { id: 't5', instance_type: '8H100.80S.176V', price_per_hour: 17.52, spot_price: 8.8, currency: 'usd', gpu: { description: '8x H100 SXM5 80GB', number_of_gpus: 8 } },
    { id: 't6', instance_type: 'CPU.4V.16G', price_per_hour: 0.0279, spot_price: 0.0112, currency: 'usd', gpu: { description: '', number_of_gpus: 0 } },
  ],
  '/v1/volume-types': [
    { type: 'NVMe', price: { price_per_month_per_gb: 0.2, currency: 'usd' } },
    { type: 'HDD', price: { price_per_month_per_gb: 0.05, currency: 'usd' } },
    { type: 'NVMe_Shared', price: { price_per_month_per_gb: 0.28, currency: 'usd' } },
  ],
  '/v1/cluster-types': [{ cluster_type: '16H100', price_per_hour: 35.04, currency: 'usd', gpu: { description: '16x H100 SXM5 80GB', number_of_gpus: 16 } }],
  '/v1/instance-availability': [
    { location_code: 'FIN-01', availabilities: ['1V100.6V', '1A100.22V', '8A100.176V', 'CPU.4V.16G'] },
    { location_code: 'FIN-03', availabilities: ['1V100.6V', '1H100.80S.22V', '8H100.80S.176V', 'CPU.4V.16G'] },
  ],
  '/v1/locations': [{ code: 'FIN-01' }, { code: 'FIN-03' }],
};

/** The time the answers are for (the runway's end is said from it). */
export const NOW = Date.parse('2026-11-24T12:00:00.000Z');

// ---------------------------------------------------------------------------------------------
// The account's true figures, by the billing rules (not by the code under test).

const list = (path: string) => MONEY_ACCOUNT[path] as Rec[];
const typeOf = (code: unknown) => list('/v1/instance-types').find((t) => t.instance_type === code)!;
const volumePrice = (type: unknown) => Number((list('/v1/volume-types').find((t) => t.type === type)!.price as Rec).price_per_month_per_gb);

/** Instances on their way to running: counted at their price, as they bill once they run. */
const COMMITTED_STATUSES = ['ordered', 'new', 'validating', 'provisioning'];
export const isCommitted = (r: Rec): boolean => COMMITTED_STATUSES.includes(String(r.status));

/** What one resource is counted in the burn per hour (what it bills now, or once it runs), or undefined when it is not. */
export function billsPerHour(r: Rec): number | undefined {
  if ('hostname' in r) {
    if (r.status !== 'running' && r.status !== 'offline' && !isCommitted(r)) return undefined;
    return r.is_spot ? Number(typeOf(r.instance_type).spot_price) : Number(r.price_per_hour);
  }
  return (volumePrice(r.type) * Number(r.size)) / 720;
}

export const INSTANCES = list('/v1/instances');
export const VOLUMES = list('/v1/volumes');
/** The OS volumes instances still provisioning will get, while the account lists none for them: counted too. */
export const VOLUMES_TO_COME: Rec[] = INSTANCES.filter((i) => isCommitted(i) && !VOLUMES.some((v) => v.id === i.os_volume_id)).map((i) => ({
  id: `${String(i.id)}/os`,
  name: `OS volume of ${String(i.hostname)} (provisioning)`,
  size: Number((i.gpu as Rec).number_of_gpus) > 0 ? 100 : 50,
  type: 'NVMe',
  status: i.status,
}));
export const byName = (name: string): Rec => [...INSTANCES, ...VOLUMES].find((r) => r.hostname === name || r.name === name)!;
export const rate = (name: string): number => billsPerHour(byName(name))!;
export const BILLING = [...INSTANCES, ...VOLUMES, ...VOLUMES_TO_COME].filter((r) => billsPerHour(r) !== undefined);
export const BURN = BILLING.reduce((s, r) => s + billsPerHour(r)!, 0);
export const BALANCE = 750;
export const RUNWAY_HOURS = BALANCE / BURN;
export const GPUS = (rs: Rec[]) => rs.reduce((s, r) => s + Number((r.gpu as Rec).number_of_gpus), 0);

/** As the answers say money: two decimals; below 0.10 an hourly price keeps four ("0.0279"). */
export const usd = (n: number) => `${n.toFixed(2)} USD`;
export const hourly = (n: number) => `${n > 0 && n < 0.1 ? n.toFixed(4) : n.toFixed(2)} USD/hour`;

export interface MoneyCase {
  q: string;
  /** Asked in talk right after these questions (same session): "them" is their answer's subjects. */
  after?: string[];
  /** Those of `after` that are declined (a decline in the thread leaves no subjects). */
  afterDeclined?: string[];
  /** The answer, whole (a string) or in part (a RegExp). */
  answer?: string | RegExp;
  /** Declined: the reason must match. */
  declined?: RegExp;
  /** The decline's hint must name this command. */
  hint?: RegExp;
}

const burnLine = (extra = '') =>
  `You are spending ${BURN.toFixed(4)} USD per hour (${(BURN * 24).toFixed(2)} per day, ${(BURN * 720).toFixed(2)} per 30 days${extra}) on ${BILLING.length} billable resources.`;
const runwayLine = `Your balance of 750.00 USD lasts ${RUNWAY_HOURS.toFixed(1)} hours (${(RUNWAY_HOURS / 24).toFixed(1)} days) at this rate, until ${new Date(NOW + RUNWAY_HOURS * 3_600_000).toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
/** The burn's line naming what it counts before it runs, from the rules: "instance new-one (provisioning), volume OS volume of new-one (provisioning)". */
const earlyCounted = BILLING.filter(isCommitted).map((r) => ('hostname' in r ? `instance ${String(r.hostname)} (${String(r.status)})` : `volume ${String(r.name)}`));
const earlyLine = `Not running yet but counted, as ${earlyCounted.length === 1 ? 'it bills once it runs' : 'they bill once they run'}: ${earlyCounted.join(', ')}.`;
const startsWith = (line: string) => new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
const hasLine = (line: string) => new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm');
const COST_HINT = /`assistant cost summary`/;

/** How an answer says one is counted before it runs: "provisioning, counted as it bills once it runs". */
const early = (name: string) => `${String(byName(name).status)}, counted as it bills once it runs`;
/** Instances that bill, most expensive first, as a list answer names them ("big 10.32 USD/hour, …", "new-one 0.39 USD/hour (provisioning, counted …)"). */
const billedList = (names: string[], per: (n: number) => string = hourly) =>
  names
    .map((n) => ({ n, r: rate(n) }))
    .sort((a, b) => b.r - a.r || a.n.localeCompare(b.n))
    .map((x) => `${x.n} ${per(x.r)}${isCommitted(byName(x.n)) ? ` (${early(x.n)})` : ''}`)
    .join(', ');
const INSTANCE_NAMES_BILLING = INSTANCES.filter((r) => billsPerHour(r) !== undefined).map((r) => String(r.hostname));
/** Instances counted below a price, as the rules count them. */
const costingLess = (perHour: number) => INSTANCE_NAMES_BILLING.filter((n) => rate(n) < perHour);
const NOT_BILLING = `Not counted: ${INSTANCES.filter((r) => billsPerHour(r) === undefined).map((r) => `${String(r.hostname)} (${String(r.status)}, not billing now)`).join(', ')}.`;
/** "that bill now", or, where one of them is counted before it runs, "counted in the burn". */
const billingOf = (names: string[]) => (names.some((n) => isCommitted(byName(n))) ? 'counted in the burn' : names.length === 1 ? 'that bills now' : 'that bill now');
const per30 = (n: number) => `${usd(n * 720)} per 30 days`;
const perDay = (n: number) => `${usd(n * 24)} per day`;
const sumOf = (names: string[]) => names.reduce((s, n) => s + rate(n), 0);
const VOLUME_NAMES = VOLUMES.map((v) => String(v.name));
const RUNNING = INSTANCES.filter((r) => r.status === 'running');


/** "12 GPUs are running, on 4 instances: big 8, data 1, …": the GPU count of `rs` as the answers word it, from the records. */
const gpuLine = (rs: Rec[]) => {
  const withGpus = rs.filter((r) => GPUS([r]) > 0).sort((a, b) => GPUS([b]) - GPUS([a]) || String(a.hostname).localeCompare(String(b.hostname)));
  return `on ${withGpus.length} instance${withGpus.length === 1 ? '' : 's'}: ${withGpus.map((r) => `${String(r.hostname)} ${GPUS([r])}`).join(', ')}`;
};
const where = (rs: Rec[], f: (r: Rec) => boolean) => rs.filter(f);
const named = (rs: Rec[]) => rs.map((r) => String(r.hostname));
/** The GPU instances counted at the lowest rate, in the account's order (two here: small and new-one, 0.39 each). */
const cheapestGpu = INSTANCE_NAMES_BILLING.filter((n) => GPUS([byName(n)]) > 0).filter((n, _i, all) => rate(n) === Math.min(...all.map(rate)));
const isH100 = (r: Rec) => /H100/.test(String(r.instance_type));

export const MONEY_CASES: MoneyCase[] = [
  // --- spend and burn: the burn now, never the balance
  { q: 'how much am I spending?', answer: startsWith(burnLine()) },
  { q: 'what do I spend per hour?', answer: startsWith(burnLine()) },
  { q: "what's my burn rate", answer: startsWith(burnLine()) },
  { q: 'how much do I pay per day?', answer: startsWith(burnLine()) },
  { q: 'what is my total cost?', answer: startsWith(burnLine()) },
  { q: 'what are my costs per month?', answer: startsWith(burnLine()) },
  { q: 'how much am I spending per week?', answer: startsWith(burnLine(`, ${(BURN * 168).toFixed(2)} per week`)) },
  { q: 'how much will I spend in a year?', answer: startsWith(burnLine(`, ${(BURN * 8760).toFixed(2)} per 365 days`)) },
  { q: 'how much am I spending in USD?', answer: startsWith(burnLine()) },
  // Counted before it runs, as `cost summary` and the budget count it, and said so.
  { q: 'how much am I spending per hour?', answer: hasLine(earlyLine) },
  { q: 'am I spending more than 10 USD per hour?', answer: startsWith(`Yes: ${hourly(BURN)} is more than 10 USD per hour. ${burnLine()}`) },
  { q: 'am I spending more than 500 dollars per day?', answer: startsWith(`No: ${perDay(BURN)} is not more than 500 USD per day. ${burnLine()}`) },
  { q: 'am I spending anything?', answer: startsWith(`Yes: y${burnLine().slice(1)}`) },
  { q: 'what is my burn in euros?', declined: /the prices are in USD, not EUR, and nothing is converted/, hint: COST_HINT },
  { q: 'how much have I spent?', declined: /"spent": what was spent before now is not in what was read/, hint: COST_HINT },
  { q: 'how much did I pay last month?', declined: /"paid"|"did"|"last"/, hint: COST_HINT },
  // --- the runway, with the current burn
  { q: 'how long will my balance last?', answer: hasLine(runwayLine) },
  { q: 'when will my money run out?', answer: hasLine(runwayLine) },
  { q: 'what is my runway?', answer: hasLine(runwayLine) },
  { q: 'how many days of credit do I have left?', answer: hasLine(runwayLine) },
  { q: 'how many hours will my balance last?', answer: hasLine(runwayLine) },
  { q: 'how long has big been running?', declined: /read with "big" as a name, it asks how long, and the one duration they know is how long the balance lasts/, hint: COST_HINT },
  // --- what one resource costs, in the period asked: what it bills now
  { q: 'how much does big cost per day?', answer: `big costs ${hourly(rate('big'))} (${perDay(rate('big'))}).` },
  { q: 'what does small cost per month?', answer: `small costs ${hourly(rate('small'))} (${per30(rate('small'))}).` },
  { q: 'how much is train-h100 per hour?', answer: `train-h100 costs ${hourly(rate('train-h100'))} at the current spot price.` },
  { q: 'what does volume datasets cost per month?', answer: `datasets costs ${hourly(rate('datasets'))} (${per30(rate('datasets'))}).` },
  { q: 'how much does cpu-box cost?', answer: `cpu-box costs ${hourly(rate('cpu-box'))}.` },
  { q: 'how much does new-one cost?', answer: `new-one costs ${hourly(rate('new-one'))} (${early('new-one')}).` },
  { q: 'how much does new-one cost per day?', answer: `new-one costs ${hourly(rate('new-one'))} (${perDay(rate('new-one'))}; ${early('new-one')}).` },
  { q: 'how much does sleeper cost per day?', answer: 'sleeper does not bill right now (it is hibernated).' },
  { q: 'what does 8A100.176V cost per day?', answer: `8A100.176V costs 10.32 USD/hour (${usd(10.32 * 24)} per day; spot 4.80 USD/hour).` },
  { q: 'what is the price of data per week?', answer: `data costs ${hourly(rate('data'))} (${usd(rate('data') * 168)} per week).` },
  // --- what resources cost in total
  {
    q: 'what is the total hourly cost of my instances?',
    answer: `Your ${INSTANCE_NAMES_BILLING.length} instances ${billingOf(INSTANCE_NAMES_BILLING)} cost ${sumOf(INSTANCE_NAMES_BILLING).toFixed(4)} USD/hour in total: ${billedList(INSTANCE_NAMES_BILLING)}. ${NOT_BILLING}`,
  },
  { q: 'how much do my volumes cost per month?', answer: `Your 5 volumes that bill now cost ${per30(sumOf(VOLUME_NAMES))} in total: ${billedList(VOLUME_NAMES, per30)}.` },
  { q: 'how much do my running instances cost per day?', answer: `Your 4 instances that are running that bill now cost ${perDay(sumOf(RUNNING.map((r) => String(r.hostname))))} in total: ${billedList(RUNNING.map((r) => String(r.hostname)), perDay)}.` },
  { q: 'what are my instances in FIN-03 costing me?', answer: `Your 2 instances in FIN-03 that bill now cost ${sumOf(['small', 'train-h100']).toFixed(4)} USD/hour in total: ${billedList(['small', 'train-h100'])}. Not counted: sleeper (hibernated, not billing now).` },
  // --- more or less than an amount
  { q: 'which instances cost more than 2 USD per hour?', answer: `1 instance costs more than 2 USD per hour: big ${hourly(rate('big'))}. ${NOT_BILLING}` },
  { q: 'which instances cost less than 1 dollar an hour?', answer: `${costingLess(1).length} instances cost less than 1 USD per hour: ${billedList(costingLess(1))}. ${NOT_BILLING}` },
  { q: 'which instances cost at least $1.10/hour?', answer: `3 instances cost at least 1.1 USD per hour: ${billedList(['big', 'data', 'train-h100'])}. ${NOT_BILLING}` },
  { q: 'which instance types cost less than 1 USD per hour?', answer: '2 instance types cost less than 1 USD per hour: 1V100.6V (0.39 USD/hour), CPU.4V.16G (0.0279 USD/hour).' },
  { q: 'which instance types cost at least 10 USD/hour?', answer: '2 instance types cost at least 10 USD per hour: 8A100.176V (10.32 USD/hour), 8H100.80S.176V (17.52 USD/hour).' },
  { q: 'which volumes cost more than 100 USD per month?', answer: `1 volume costs more than 100 USD per 30 days: datasets ${per30(rate('datasets'))}.` },
  { q: 'which instances have more than 1 GPU?', answer: `2 instances have more than 1 GPU: ${named(where(INSTANCES, (r) => GPUS([r]) > 1)).join(', ')}.` },
  { q: 'which instance types have at least 8 GPUs?', answer: '2 instance types have at least 8 GPUs: 8A100.176V, 8H100.80S.176V.' },
  { q: 'which instances cost more than 2?', declined: /"more than 2" does not say per what \(per hour, per day or per month\?\)/, hint: COST_HINT },
  { q: 'which instances have more than 2?', declined: /"more than 2" has no unit/ },
  { q: 'which instances cost more than 2 EUR per hour?', declined: /the prices are in USD, not EUR, and nothing is converted/, hint: COST_HINT },
  { q: 'which instances cost less than -5 USD per hour?', declined: /a signed amount/ },
  { q: 'which instances cost more than 1,000 USD per month?', declined: /a number with a comma reads two ways/ },
  { q: 'which instances cost more than 1e999 USD per hour?', declined: /too large to compare/ },
  { q: 'which instances cost more than 99999999999 USD per hour?', answer: `None of your instances costs more than 99999999999 USD per hour. ${NOT_BILLING}` },
  // --- what costs the most, the least
  { q: 'what costs the most?', answer: `Instance big costs the most of what bills now: ${hourly(rate('big'))}, of your ${hourly(BURN)} in all.` },
  { q: 'what costs the least?', answer: `Volume scratch costs the least of what bills now: ${hourly(rate('scratch'))}, of your ${hourly(BURN)} in all.` },
  { q: 'what costs the most per day?', answer: `Instance big costs the most of what bills now: ${perDay(rate('big'))}, of your ${perDay(BURN)} in all.` },
  { q: 'which instance costs the most?', answer: `Your most expensive instance is big (${hourly(rate('big'))}). ${NOT_BILLING}` },
  { q: 'what is my most expensive volume?', answer: `Your most expensive volume is datasets (${hourly(rate('datasets'))}).` },
  {
    q: 'which GPU instance costs the least?',
    answer: `Your cheapest GPU instances are ${cheapestGpu.join(' and ')} (${hourly(rate(cheapestGpu[0]!))} each${cheapestGpu.filter((n) => isCommitted(byName(n))).map((n) => `; ${n} ${early(n)}`).join('')}). ${NOT_BILLING}`,
  },
  { q: 'which running instance is the cheapest?', answer: `Your cheapest instance that is running is small (${hourly(rate('small'))}).` },
  // --- GPUs counted, not the instances that have them
  { q: 'how many GPUs are running?', answer: `${GPUS(RUNNING)} GPUs are running, ${gpuLine(RUNNING)}.` },
  { q: 'how many GPUs do I have?', answer: `You have ${GPUS(INSTANCES)} GPUs, ${gpuLine(INSTANCES)}.` },
  { q: 'how many GPUs are running in FIN-03?', answer: `${GPUS(where(RUNNING, (r) => r.location === 'FIN-03'))} GPUs are running in FIN-03, ${gpuLine(where(RUNNING, (r) => r.location === 'FIN-03'))}.` },
  { q: 'how many H100 GPUs are running?', answer: `${GPUS(where(RUNNING, isH100))} H100 GPU is running, ${gpuLine(where(RUNNING, isH100))}.` },
  { q: 'how many spot GPUs are running?', answer: `${GPUS(where(RUNNING, (r) => r.is_spot === true))} spot GPU is running, ${gpuLine(where(RUNNING, (r) => r.is_spot === true))}.` },
  { q: 'what is the total number of GPUs?', answer: `You have ${GPUS(INSTANCES)} GPUs, ${gpuLine(INSTANCES)}.` },
  { q: 'are any GPUs running?', answer: `Yes: ${where(RUNNING, (r) => GPUS([r]) > 0).length} GPU instances are running: ${named(where(RUNNING, (r) => GPUS([r]) > 0)).join(', ')}.` },
  { q: 'how many GPU instances are running?', answer: `${where(RUNNING, (r) => GPUS([r]) > 0).length} GPU instances are running.` },
  { q: 'how many GPUs are available in FIN-01?', declined: /they count the GPUs of instances and clusters, not of availability/ },
  // --- names that are also words
  { q: 'what is the IP of big?', answer: "big's IP address is 203.0.113.20." },
  { q: 'is big running?', answer: 'Yes: big is running.' },
  { q: 'where is big?', answer: 'big is in FIN-01.' },
  { q: "what is data's status?", answer: 'data is running.' },
  { q: 'what is the cost of big per day?', answer: `big costs ${hourly(rate('big'))} (${perDay(rate('big'))}).` },
  { q: 'how much do big and small cost per hour?', answer: `big costs ${hourly(rate('big'))}.\nsmall costs ${hourly(rate('small'))}.` },
  { q: 'how much do big and data cost together?', answer: `big and data cost ${hourly(sumOf(['big', 'data']))} together now: big ${hourly(rate('big'))}, data ${hourly(rate('data'))}.` },
  { q: 'what is the total cost of big and small per day?', answer: `big and small cost ${perDay(sumOf(['big', 'small']))} together now: big ${perDay(rate('big'))}, small ${perDay(rate('small'))}.` },
  { q: 'how much do big and sleeper cost together?', answer: `big and sleeper cost ${hourly(rate('big'))} together now: big ${hourly(rate('big'))}. Not counted: sleeper (hibernated, not billing now).` },
  { q: 'sum of GPUs', answer: `You have ${GPUS(INSTANCES)} GPUs, ${gpuLine(INSTANCES)}.` },
  { q: 'what is the IP of "big"?', answer: "big's IP address is 203.0.113.20." },
  { q: 'how much does the big instance cost per month?', answer: `big costs ${hourly(rate('big'))} (${per30(rate('big'))}).` },
  { q: 'how much is the data volume per month?', declined: /"data volume": data is an instance, and there is no volume called data/ },
  { q: 'what does the datasets volume cost per month?', answer: `datasets costs ${hourly(rate('datasets'))} (${per30(rate('datasets'))}).` },
  { q: 'how big is volume datasets?', declined: /"big" is both a word they know and the name of a resource.*write the kind before the name \("instance big"\) or quote it/ },
  // --- talk's follow-ups: "them" is the last answer's subjects
  { q: 'which of them are in FIN-03?', after: ['which instances are running?'], answer: 'You have 2 instances in FIN-03: small, train-h100.' },
  { q: 'and how much do they cost?', after: ['which instances are running?', 'which of them are in FIN-03?'], answer: `Your 2 instances that bill now cost ${sumOf(['small', 'train-h100']).toFixed(4)} USD/hour in total: ${billedList(['small', 'train-h100'])}.` },
  { q: 'which of them cost more than 1 USD per month?', after: ['which volumes are detached?'], answer: `2 volumes cost more than 1 USD per 30 days: ${billedList(['datasets', 'scratch'], per30)}.` },
  { q: 'which of them are in FIN-01?', after: ['how many GPUs are running?'], answer: `You have 2 instances in FIN-01: ${named(where(RUNNING, (r) => GPUS([r]) > 0 && r.location === 'FIN-01')).join(', ')}.` },
  { q: 'how much does it cost per day?', after: ['what costs the most?'], answer: `Your 1 instance that bills now costs ${perDay(rate('big'))}: big ${perDay(rate('big'))}.` },
  { q: 'which of them are in FIN-03?', after: ['which volumes are detached?'], answer: 'You have 1 volume in FIN-03: scratch.' },
  { q: 'which of them are running?', after: ['which instances have more than 1 GPU?', 'how much do they cost per day?'], answer: `1 instance is running: ${RUNNING.filter((r) => GPUS([r]) > 1).map((r) => String(r.hostname)).join(', ')}.` },
  { q: 'are any of them running?', after: ['which volumes are detached?'], answer: `No: none of your ${VOLUMES.filter((v) => v.status === 'detached').length} volumes is running.` },
  { q: 'which of them are in FIN-03?', after: ['which instances are running?', 'how much did I pay last month?'], afterDeclined: ['how much did I pay last month?'], declined: /names nothing they know/ },
  { q: 'which of them are in FIN-03?', declined: /names nothing they know/ },
  { q: 'which of them are running?', declined: /names nothing they know/ },
];
