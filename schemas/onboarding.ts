import { z } from 'zod';

/**
 * What `onboarding scan -o json` and `onboarding install --dry-run -o json` print, and the recipe files
 * `onboarding install --recipes <file>` reads. Scripts (CI's `--require`, dotfile installers) rely on
 * these shapes: `schema_version` changes when a field changes meaning or goes away; new fields are
 * additions within a version. JSON Schemas generated from these: schemas/onboarding-*.v1.schema.json.
 */

export const ONBOARDING_SCHEMA_VERSION = 1 as const;

const OsSchema = z.enum(['linux', 'darwin', 'windows']);
const ArchSchema = z.enum(['x64', 'arm64']);
const ManagerSchema = z.enum(['apt', 'dnf', 'brew', 'winget', 'npm', 'pipx', 'pip']);
const MethodSchema = z.enum(['apt', 'dnf', 'brew', 'winget', 'npm', 'pipx', 'pip', 'download']);
const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lower-case hex digits');

export const PlatformReportSchema = z.strictObject({
  os: OsSchema,
  arch: ArchSchema,
  package_managers: z.array(ManagerSchema),
  root: z.boolean(),
  injected: z.boolean().describe('os/arch came from --platform'),
});

export const ToolReportSchema = z.strictObject({
  name: z.string(),
  title: z.string(),
  found: z.boolean(),
  path: z.string().optional(),
  version: z.string().optional(),
  min_version: z.string().optional(),
  version_ok: z.boolean().nullable(),
  problem: z.string().optional(),
  providers: z.record(z.string(), z.enum(['required', 'optional', 'one-of'])),
});

export const CredentialSourceSchema = z.strictObject({
  kind: z.enum(['config', 'env', 'file', 'backend', 'cli-profile']),
  where: z.string().describe('a config key, environment variable name(s), file path or CLI profile; never a value'),
  present: z.boolean(),
  used: z.boolean().optional(),
  note: z.string().optional(),
});

export const ProviderReportSchema = z.strictObject({
  provider: z.string(),
  title: z.string(),
  configured: z.boolean().describe('some credential source is present'),
  source: z.strictObject({ kind: CredentialSourceSchema.shape.kind, where: z.string() }).optional().describe('the source that would be used'),
  sources: z.array(CredentialSourceSchema).describe('every source, in the order the project resolves them'),
  tools: z.array(z.strictObject({ name: z.string(), need: z.enum(['required', 'optional', 'one-of']), found: z.boolean(), version_ok: z.boolean().nullable() })),
  tools_ok: z.boolean(),
  checkable: z.boolean().describe('the provider has a read-only --check'),
  checked: z.boolean(),
  authenticated: z.boolean().nullable().describe('null: not checked, or the check could not tell'),
  identity: z.string().optional(),
  detail: z.string().optional(),
  check_ms: z.number().optional(),
  ready: z.boolean().describe('configured, its required tools found, and (when checked) authenticated'),
});

export const AiReportSchema = z.strictObject({
  profile: z.string(),
  kind: z.string(),
  default: z.boolean(),
  configured: z.boolean(),
  source: z.strictObject({ kind: CredentialSourceSchema.shape.kind, where: z.string() }).optional(),
  note: z.string().optional(),
  checked: z.boolean(),
  answers: z.boolean().nullable(),
  detail: z.string().optional(),
});

export const NextStepSchema = z.strictObject({
  provider: z.string().optional(),
  why: z.string(),
  command: z.string().optional().describe('the exact command to run'),
});

export const ScanReportSchema = z.strictObject({
  schema_version: z.literal(ONBOARDING_SCHEMA_VERSION),
  platform: PlatformReportSchema,
  config: z.strictObject({ path: z.string(), exists: z.boolean(), problem: z.string().optional() }),
  checked: z.boolean().describe('--check ran'),
  tools: z.array(ToolReportSchema),
  providers: z.array(ProviderReportSchema),
  ai: z.strictObject({ providers: z.array(AiReportSchema), problems: z.array(z.string()) }),
  next_steps: z.array(NextStepSchema),
});

export type ScanReport = z.infer<typeof ScanReportSchema>;
export type ProviderReport = z.infer<typeof ProviderReportSchema>;
export type ToolReport = z.infer<typeof ToolReportSchema>;
export type NextStepReport = z.infer<typeof NextStepSchema>;

// ---------------------------------------------------------------------------------------------
// Install: recipes and the local plan they compile to.

const ArtefactFormatSchema = z.enum(['binary', 'zip', 'tar.gz']);

/** A download for one os/arch: a pinned URL and SHA-256, and the executable to take from it. */
export const ArtefactSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  sha256: Sha256Schema,
  /** Bytes; the download is refused as soon as it grows past this. */
  size: z.int().positive().optional(),
  format: ArtefactFormatSchema,
});

export const RecipeSchema = z.discriminatedUnion('method', [
  z.strictObject({
    method: z.literal('download'),
    version: z.string(),
    /** The executable inside the archive (its base name; `.exe` added on Windows). */
    binary: z.string().regex(/^(?!\.{1,2}$)[\w.-]+$/, 'a file name (letters, digits, ".", "_", "-"; not "." or "..")'),
    /** `<os>/<arch>` → artefact, e.g. `linux/arm64`. */
    artefacts: z.record(z.string().regex(/^(linux|darwin|windows)\/(x64|arm64)$/), ArtefactSchema),
  }),
  z.strictObject({
    method: ManagerSchema,
    /** The package (and for brew `--cask <name>` as `cask:<name>`); several run in one install. */
    // A package name, never an option: nothing may start with "-".
    packages: z.array(z.string().regex(/^[\w@][\w@./:+-]*$/, 'a package name (no spaces, no leading "-")')).min(1),
    /** Operating systems this recipe is for (default: every OS the package manager runs on). */
    os: z.array(OsSchema).optional(),
    note: z.string().optional(),
  }),
]);

export const RecipeFileSchema = z.strictObject({
  schema_version: z.literal(ONBOARDING_SCHEMA_VERSION),
  /** tool → recipes, tried before the built-in ones, in order. */
  recipes: z.record(z.string(), z.array(RecipeSchema)),
});

export type Recipe = z.infer<typeof RecipeSchema>;
export type DownloadRecipe = Extract<Recipe, { method: 'download' }>;
export type ManagerRecipe = Exclude<Recipe, { method: 'download' }>;
export type Artefact = z.infer<typeof ArtefactSchema>;
export type RecipeFile = z.infer<typeof RecipeFileSchema>;

export const InstallStepSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('exec'),
    /** The command as run (no shell), `sudo` first when it needs root. */
    argv: z.array(z.string()).min(1),
    sudo: z.boolean(),
    timeout_s: z.number().positive(),
  }),
  z.strictObject({
    kind: z.literal('download'),
    url: z.string(),
    sha256: Sha256Schema,
    size: z.int().positive().optional(),
    timeout_s: z.number().positive(),
  }),
  z.strictObject({
    kind: z.literal('unpack'),
    format: ArtefactFormatSchema,
    /** The executable taken from the archive. */
    binary: z.string(),
    /** Where it is written (atomically, mode 0755). */
    dest: z.string(),
  }),
]);

export const ToolPlanSchema = z.strictObject({
  tool: z.string(),
  method: MethodSchema,
  version: z.string().optional(),
  needs_sudo: z.boolean(),
  /** Why it is installed: named, or a configured provider needs it. */
  reason: z.string(),
  replaces: z.string().optional().describe('--force: the copy found on PATH'),
  steps: z.array(InstallStepSchema).min(1),
  note: z.string().optional(),
});

export const InstallPlanSchema = z.strictObject({
  schema_version: z.literal(ONBOARDING_SCHEMA_VERSION),
  platform: PlatformReportSchema,
  prefix: z.string(),
  bin_dir: z.string(),
  bin_dir_on_path: z.boolean(),
  /** Steps shared by several tools (the package lists of apt), run first. */
  setup: z.array(z.strictObject({ method: MethodSchema, steps: z.array(InstallStepSchema).min(1) })),
  tools: z.array(ToolPlanSchema),
  skipped: z.array(z.strictObject({ tool: z.string(), reason: z.string(), path: z.string().optional(), version: z.string().optional() })),
  unavailable: z.array(z.strictObject({ tool: z.string(), reason: z.string(), manual: z.string() })),
});

export const InstallResultSchema = z.strictObject({
  tool: z.string(),
  status: z.enum(['installed', 'failed', 'skipped', 'not-installed']),
  method: MethodSchema.optional(),
  path: z.string().optional(),
  version: z.string().optional(),
  error: z.string().optional(),
  /** The failing step's last lines of output (secrets masked). */
  output: z.array(z.string()).optional(),
});

export const InstallReportSchema = z.strictObject({
  schema_version: z.literal(ONBOARDING_SCHEMA_VERSION),
  results: z.array(InstallResultSchema),
  bin_dir: z.string(),
  bin_dir_on_path: z.boolean(),
});

export type InstallStep = z.infer<typeof InstallStepSchema>;
export type ToolPlan = z.infer<typeof ToolPlanSchema>;
export type InstallPlan = z.infer<typeof InstallPlanSchema>;
export type InstallResult = z.infer<typeof InstallResultSchema>;
export type InstallReport = z.infer<typeof InstallReportSchema>;

/** JSON Schemas of what scripts read (written to schemas/ by scripts/write-schemas.mjs). */
export function onboardingJsonSchemas(): Record<string, Record<string, unknown>> {
  const one = (schema: z.ZodType, id: string, title: string) => ({
    $id: id,
    title,
    ...(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
  });
  return {
    'onboarding-scan.v1.schema.json': one(ScanReportSchema, 'onboarding-scan.v1.schema.json', 'assistant onboarding scan -o json'),
    'onboarding-install-plan.v1.schema.json': one(InstallPlanSchema, 'onboarding-install-plan.v1.schema.json', 'assistant onboarding install --dry-run -o json'),
    'onboarding-install-report.v1.schema.json': one(InstallReportSchema, 'onboarding-install-report.v1.schema.json', 'assistant onboarding install -o json'),
    'onboarding-recipes.v1.schema.json': one(RecipeFileSchema, 'onboarding-recipes.v1.schema.json', 'assistant onboarding install --recipes <file>'),
  };
}
