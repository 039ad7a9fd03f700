/**
 * The names a deploy gives what it creates, the same on every provider: the deployment's own name (a
 * URL slug, as container names must be and hostnames like) and the binding a secret value is applied
 * under (its value never enters the plan).
 */

/** A deployment name: lower-case URL slug of at most 63 characters (container names must be; hostnames like it). */
export function slugName(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug || 'app';
}

/** The placeholder a secret environment value is bound to when the plan is applied (`DEPLOY_SECRET_API_KEY`). */
export const secretBinding = (variable: string) => `DEPLOY_SECRET_${variable.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
