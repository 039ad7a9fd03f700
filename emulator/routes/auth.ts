/** POST /v1/oauth2/token — client_credentials and refresh_token grants (JSON or form-encoded). */
import { issueTokens, consumeRefreshToken, TOKEN_SCOPE } from '../auth.js';
import { ApiError, badRequest, json } from '../http.js';
import type { Ctx, RouteDef } from '../router.js';
import { isObj } from '../validate.js';

/**
 * A requested scope the API cannot issue: 400 invalid_scope (the reference's 400 code enum). No scope is
 * the server's default; a space-separated list (RFC 6749 §3.3) is granted only when every item is
 * cloud-api-v1, so the old `fullAccess` and anything beside cloud-api-v1 are refused, never narrowed.
 */
function checkScope(requested: unknown): void {
  if (requested === undefined) return;
  const items = typeof requested === 'string' ? requested.split(' ').filter((s) => s !== '') : [];
  if (items.length === 0 || items.some((s) => s !== TOKEN_SCOPE)) {
    throw new ApiError(400, 'invalid_scope', `The requested scope is invalid: this API issues only ${TOKEN_SCOPE}`);
  }
}

function token(ctx: Ctx) {
  const b = isObj(ctx.body) ? ctx.body : {};
  const str = (k: string): string | undefined => (typeof b[k] === 'string' && b[k] !== '' ? (b[k] as string) : undefined);
  const grant = str('grant_type');
  if (grant === 'client_credentials') {
    const id = str('client_id');
    const secret = str('client_secret');
    if (!id) throw badRequest('client_id was not specified');
    if (!secret) throw badRequest('client_secret was not specified');
    if (id !== ctx.opts.clientId || secret !== ctx.opts.clientSecret)
      throw new ApiError(401, 'unauthorized_request', 'Invalid client id or client secret');
    checkScope(b.scope);
    return json(200, issueTokens(ctx.store, ctx.opts.tokenTtlSec, ctx.now));
  }
  if (grant === 'refresh_token') {
    const refresh = str('refresh_token');
    if (!refresh) throw badRequest('refresh_token was not specified');
    // GO also sends client_id/client_secret with a refresh; when present they must be right.
    const id = str('client_id');
    const secret = str('client_secret');
    if ((id !== undefined && id !== ctx.opts.clientId) || (secret !== undefined && secret !== ctx.opts.clientSecret))
      throw new ApiError(401, 'unauthorized_request', 'Invalid client id or client secret');
    // Checked before the refresh token is consumed: a refused request must not cost the caller its token.
    checkScope(b.scope);
    if (!consumeRefreshToken(ctx.store, refresh, ctx.now))
      throw new ApiError(401, 'unauthorized_request', 'Invalid or expired refresh token');
    return json(200, issueTokens(ctx.store, ctx.opts.tokenTtlSec, ctx.now));
  }
  throw badRequest('unsupported grant type');
}

export const authRoutes: RouteDef[] = [{ method: 'POST', path: '/v1/oauth2/token', handler: token, auth: false }];
